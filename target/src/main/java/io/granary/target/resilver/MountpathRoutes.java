package io.granary.target.resilver;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.common.api.ApiPaths;
import io.granary.common.control.ControlClient;
import io.granary.common.error.BadRequestException;
import io.granary.common.error.MethodNotAllowedException;
import io.granary.common.exec.BoundedExecutor;
import io.granary.common.http.HttpExchange;
import io.granary.common.http.JsonRequestHandler;
import io.granary.common.http.RequestHandler;
import io.granary.common.http.Router;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.Callable;

/**
 * The target's mountpath endpoints (docs/resilver.md), cluster-signed like every target request (operators go through
 * a proxy's {@code /v1/cluster/nodes/ID/mountpaths}):
 *
 * <pre>
 * GET    /v1/mountpaths                          each mountpath and the latest resilver
 * POST   /v1/mountpaths  {"path":"/abs/dir"}     attach; 201
 * DELETE /v1/mountpaths/ENCODED_PATH?mode=detach|disable   (detach by default)
 * </pre>
 *
 * Every answer is the {@code MountpathsReport} after the call. Changes block on disk: they run on the disk pool.
 */
public final class MountpathRoutes implements Router {
  private static final String EXPECTED = "expected {\"path\":\"/absolute/directory\"}";

  private final MountpathAdmin admin;
  private final BoundedExecutor disk;

  public MountpathRoutes(MountpathAdmin admin, BoundedExecutor disk) {
    this.admin = admin;
    this.disk = disk;
  }

  @Override
  public RequestHandler route(HttpExchange ex) {
    String path = ex.path().raw();
    HttpMethod m = ex.method();
    if (path.equals(ApiPaths.MOUNTPATHS) || path.equals(ApiPaths.MOUNTPATHS_SLASH)) {
      if (m.equals(HttpMethod.GET)) {
        return e -> answer(e, HttpResponseStatus.OK, admin::report);
      } else if (m.equals(HttpMethod.POST)) {
        return new AttachHandler();
      }
    } else if (path.startsWith(ApiPaths.MOUNTPATHS_SLASH)) {
      if (m.equals(HttpMethod.DELETE)) {
        String mp = ex.path().decodedAfter(ApiPaths.MOUNTPATHS_SLASH);
        String target = mp.startsWith("/") ? mp : "/" + mp; // a client may have dropped the leading slash
        String mode = ex.queryParam("mode");
        if (mode == null || mode.isEmpty() || mode.equals("detach")) {
          return e -> answer(e, HttpResponseStatus.OK, () -> admin.detach(target));
        } else if (mode.equals("disable")) {
          return e -> answer(e, HttpResponseStatus.OK, () -> admin.disable(target));
        }
        throw BadRequestException.invalidArgument("mode must be detach or disable, got '" + mode + "'");
      }
    }
    throw new MethodNotAllowedException(m, path);
  }

  private void answer(HttpExchange ex, HttpResponseStatus status, Callable<Object> call) {
    disk.submit(call).whenComplete((report, err) -> {
      if (err != null) {
        ex.sendError(ControlClient.cause(err));
      } else {
        ex.sendJson(status, report);
      }
    });
  }

  /** POST: the body names the directory to attach. */
  private final class AttachHandler extends JsonRequestHandler {
    @Override
    protected void handle(HttpExchange ex, JsonNode body) {
      if (body == null || !body.isObject() || body.size() != 1 || !body.path("path").isTextual()) {
        throw new BadRequestException(BadRequestException.MALFORMED_JSON, EXPECTED);
      }
      String dir = body.get("path").asText();
      answer(ex, HttpResponseStatus.CREATED, () -> admin.attach(dir));
    }
  }
}

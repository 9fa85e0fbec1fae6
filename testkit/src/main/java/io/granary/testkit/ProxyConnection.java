package io.granary.testkit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * One client connection of a {@link FaultProxy}, served by one thread: requests are handled in turn (no
 * pipelining), each forwarded over one kept-alive upstream connection that is reopened when the server closed it.
 */
final class ProxyConnection implements Runnable {
  private static final int IDLE_TIMEOUT_MS = 60_000;
  /** How long to wait for a "100 Continue" before sending the body anyway (what clients do too). */
  private static final int CONTINUE_WAIT_MS = 1_000;

  private final FaultProxy proxy;
  private final Socket client;
  private final URI upstream;
  private Socket server;
  private BufferedInputStream serverIn;
  private OutputStream serverOut;

  ProxyConnection(FaultProxy proxy, Socket client, URI upstream) {
    this.proxy = proxy;
    this.client = client;
    this.upstream = upstream;
  }

  @Override
  public void run() {
    try (client) {
      client.setSoTimeout(IDLE_TIMEOUT_MS);
      client.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(client.getInputStream(), Staging.BUFFER);
      OutputStream out = new BufferedOutputStream(client.getOutputStream(), Staging.BUFFER);
      while (!Thread.currentThread().isInterrupted()) {
        HttpHead request = HttpHead.read(in);
        if (request == null || !exchange(request, in, out)) {
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Peer gone, proxy closing, or a fault cut the connection: nothing to report.
    } finally {
      closeServer();
      proxy.forget(client);
    }
  }

  /** Handles one request; returns whether the client connection stays open. */
  private boolean exchange(HttpHead request, InputStream in, OutputStream out) throws IOException {
    FaultProxy.Recorded rec = new FaultProxy.Recorded(request.method(), request.target(), request.header("Range"));
    FaultProxy.Fault fault = proxy.record(rec);
    boolean keepAlive = !request.wantsClose();
    if (fault instanceof FaultProxy.Fault.Status s) {
      return answerStatus(request, s.status(), in, out) && keepAlive;
    }
    ensureServer();
    serverOut.write(request.raw);
    serverOut.flush();
    HttpHead response = null;
    if (request.hasToken("Expect", "100-continue")) {
      response = awaitContinue(out);
      if (response != null) {
        // A final answer before the body: the client will not send it, so neither side can be reused.
        relay(request, response, fault, out);
        return false;
      }
    }
    BodyCopier.plain().copy(request, in, serverOut, false);
    serverOut.flush();
    do {
      response = HttpHead.read(serverIn);
      if (response == null) {
        throw new EOFException("upstream closed before answering");
      }
      if (response.status() / 100 == 1 && response.status() != 101) {
        out.write(response.raw); // Interim answers pass through.
        out.flush();
      }
    } while (response.status() / 100 == 1 && response.status() != 101);
    return relay(request, response, fault, out) && keepAlive;
  }

  /** Waits briefly for "100 Continue" (relayed); returns a final answer that came instead, or null. */
  private HttpHead awaitContinue(OutputStream out) throws IOException {
    server.setSoTimeout(CONTINUE_WAIT_MS);
    try {
      serverIn.mark(1);
      if (serverIn.read() < 0) {
        throw new EOFException("upstream closed before answering");
      }
      serverIn.reset();
    } catch (SocketTimeoutException quiet) {
      return null;
    } finally {
      server.setSoTimeout(IDLE_TIMEOUT_MS);
    }
    HttpHead head = HttpHead.read(serverIn);
    if (head.status() == 100) {
      out.write(head.raw);
      out.flush();
      return null;
    }
    return head;
  }

  /** Sends the response head and body to the client, applying the fault; returns whether to keep both open. */
  private boolean relay(HttpHead request, HttpHead response, FaultProxy.Fault fault, OutputStream out)
      throws IOException {
    if (fault instanceof FaultProxy.Fault.Stall s && s.afterBodyBytes() <= 0) {
      BodyCopier.sleep(s.delay());
    }
    out.write(fault instanceof FaultProxy.Fault.ReplaceHeader h ? response.withHeader(h.name(), h.value())
        : response.raw);
    int status = response.status();
    boolean noBody = request.method().equals("HEAD") || status == 204 || status == 304;
    boolean untilClose = !response.chunked() && response.contentLength() < 0;
    BodyCopier copier = BodyCopier.with(fault);
    try {
      if (!noBody) {
        copier.copy(response, serverIn, out, untilClose);
      }
    } catch (BodyCopier.Truncated t) {
      closeServer();
      return false;
    }
    out.flush();
    boolean reusable = !response.wantsClose() && !(untilClose && !noBody) && !copier.truncates();
    if (!reusable) {
      closeServer();
    }
    return reusable;
  }

  /** Answers {@code status} without forwarding; the request body is read and dropped to keep the connection. */
  private boolean answerStatus(HttpHead request, int status, InputStream in, OutputStream out) throws IOException {
    boolean expectContinue = request.hasToken("Expect", "100-continue");
    if (!expectContinue) {
      BodyCopier.plain().copy(request, in, OutputStream.nullOutputStream(), false);
    }
    String target = request.target();
    boolean gcs = target.startsWith("/storage/") || target.startsWith("/upload/") || target.startsWith("/download/");
    String reason = FaultProxy.reason(status);
    String body = gcs
        ? "{\"error\":{\"code\":" + status + ",\"message\":\"" + reason + " (injected)\",\"errors\":[{\"message\":\""
            + reason + " (injected)\",\"domain\":\"global\",\"reason\":\"" + FaultProxy.gcsReason(status) + "\"}]}}"
        : "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + FaultProxy.s3Code(status)
            + "</Code><Message>" + reason + " (injected)</Message><RequestId>faultproxy</RequestId></Error>";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    boolean head = request.method().equals("HEAD");
    boolean close = expectContinue || request.wantsClose();
    String h = "HTTP/1.1 " + status + " " + reason + "\r\n"
        + "Content-Type: " + (gcs ? "application/json; charset=UTF-8" : "application/xml") + "\r\n"
        + "Content-Length: " + (head ? 0 : bytes.length) + "\r\n"
        + (close ? "Connection: close\r\n" : "")
        + "\r\n";
    out.write(h.getBytes(StandardCharsets.ISO_8859_1));
    if (!head && status != 204 && status != 304) {
      out.write(bytes);
    }
    out.flush();
    return !close;
  }

  private void ensureServer() throws IOException {
    if (server != null && !serverClosed()) {
      return;
    }
    closeServer();
    server = new Socket();
    proxy.track(server);
    server.connect(new InetSocketAddress(upstream.getHost(), upstream.getPort()), 5_000);
    server.setSoTimeout(IDLE_TIMEOUT_MS);
    server.setTcpNoDelay(true);
    serverIn = new BufferedInputStream(server.getInputStream(), Staging.BUFFER);
    serverOut = new BufferedOutputStream(server.getOutputStream(), Staging.BUFFER);
  }

  /** An idle kept-alive connection the server has closed reads EOF at once; a live one times out. */
  private boolean serverClosed() throws IOException {
    server.setSoTimeout(1);
    try {
      serverIn.mark(1);
      int b = serverIn.read();
      serverIn.reset();
      return b < 0;
    } catch (SocketTimeoutException alive) {
      return false;
    } catch (IOException e) {
      return true;
    } finally {
      if (!server.isClosed()) {
        server.setSoTimeout(IDLE_TIMEOUT_MS);
      }
    }
  }

  private void closeServer() {
    if (server != null) {
      try {
        server.close();
      } catch (IOException ignored) {
        // Closing anyway.
      }
      proxy.forget(server);
      server = null;
    }
  }
}

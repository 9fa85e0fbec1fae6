package io.granary.cli.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed config file: a YAML map from setting name (a flag without its dashes) to a scalar, or to a list of
 * scalars for a repeatable flag ({@code mountpath}). Anything else is refused with the key and the line, never
 * skipped: a setting that silently does not apply is worse than a node that does not start.
 *
 * <p>A file every node of a cluster reads (the operator's ConfigMap) may hold a map per role, {@code proxy:} and
 * {@code target:}: a node takes the top-level settings and its own role's, which win ({@link #forRole}).
 */
public final class ConfigFile {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /** The roles a file may hold a section for. */
  static final List<String> ROLES = List.of("proxy", "target");

  private final Path path;
  private final Map<String, List<String>> values;
  private final Map<String, Map<String, List<String>>> sections;

  private ConfigFile(Path path, Map<String, List<String>> values, Map<String, Map<String, List<String>>> sections) {
    this.path = path;
    this.values = values;
    this.sections = sections;
  }

  /** Reads and checks the shape of {@code path}; which keys a command takes is {@link ConfigDefaults}' part. */
  public static ConfigFile load(Path path) throws ConfigException {
    JsonNode root;
    try (InputStream in = Files.newInputStream(path)) {
      root = YAML.readTree(in);
    } catch (NoSuchFileException e) {
      throw new ConfigException("config " + path + ": no such file");
    } catch (JsonProcessingException e) {
      throw new ConfigException("config " + path + ": malformed YAML" + at(e.getLocation()) + ": "
          + oneLine(e.getOriginalMessage()).replace(" in 'reader',", "").replace(" ^", ""));
    } catch (IOException e) {
      throw new ConfigException("config " + path + ": cannot read it: " + oneLine(e.getMessage()));
    }
    Map<String, List<String>> values = new LinkedHashMap<>();
    Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
    if (root == null || root.isMissingNode() || root.isNull()) {
      return new ConfigFile(path, values, sections); // an empty file sets nothing
    }
    if (!root.isObject()) {
      throw new ConfigException("config " + path + ": expected a map of settings (key: value), got a "
          + kind(root));
    }
    for (Map.Entry<String, JsonNode> e : root.properties()) {
      if (ROLES.contains(e.getKey()) && e.getValue().isObject()) {
        Map<String, List<String>> section = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> s : e.getValue().properties()) {
          section.put(s.getKey(), values(path, e.getKey() + "." + s.getKey(), s.getValue()));
        }
        sections.put(e.getKey(), section);
      } else {
        values.put(e.getKey(), values(path, e.getKey(), e.getValue()));
      }
    }
    return new ConfigFile(path, values, sections);
  }

  /** The settings a node of {@code role} takes: the top-level ones and its section's, which win. */
  public ConfigFile forRole(String role) {
    Map<String, List<String>> merged = new LinkedHashMap<>(values);
    merged.putAll(sections.getOrDefault(role, Map.of()));
    return new ConfigFile(path, merged, Map.of());
  }

  private static List<String> values(Path path, String key, JsonNode v) throws ConfigException {
    if (v.isValueNode() && !v.isNull()) {
      return List.of(v.asText());
    }
    if (v.isArray() && !v.isEmpty()) {
      List<String> out = new ArrayList<>();
      for (JsonNode item : v) {
        if (!item.isValueNode() || item.isNull()) {
          throw new ConfigException("config " + path + ": key '" + key + "': list items must be values, got a "
              + kind(item));
        }
        out.add(item.asText());
      }
      return out;
    }
    throw new ConfigException("config " + path + ": key '" + key + "': expected a value"
        + (v.isNull() ? ", got none (remove the key to use the default)" : ", got " + (v.isArray()
            ? "an empty list" : "a " + kind(v))));
  }

  private static String kind(JsonNode n) {
    return n.isObject() ? "map" : n.isArray() ? "list" : n.isNull() ? "null" : "value";
  }

  private static String at(JsonLocation loc) {
    return loc == null || loc.getLineNr() < 1 ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s+", " ").trim();
  }

  public Path path() {
    return path;
  }

  /** Settings in file order; each value is one string, or several for a list. */
  public Map<String, List<String>> values() {
    return Collections.unmodifiableMap(values);
  }
}

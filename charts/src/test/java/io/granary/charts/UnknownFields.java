package io.granary.charts;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Fields the Kubernetes model does not know, anywhere in a parsed object. fabric8 keeps them in each model
 * object's additionalProperties instead of failing, and the API server would drop or refuse them: a misspelt
 * {@code imagePullPolicy} or a key at the wrong indentation shows up here.
 */
final class UnknownFields {
  private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

  private UnknownFields() {
  }

  /** Each unknown field as "path: [names]"; empty when every field is part of the model. */
  static List<String> of(Object object) {
    List<String> out = new ArrayList<>();
    walk(object, object.getClass().getSimpleName(), out);
    return out;
  }

  private static void walk(Object o, String path, List<String> out) {
    if (o == null || o instanceof GenericKubernetesResource) {
      return; // custom resources are checked against their CRD's schema instead
    }
    if (o instanceof Map<?, ?> map) {
      map.forEach((k, v) -> walk(v, path + "." + k, out));
      return;
    }
    if (o instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        walk(item, path + "[" + i++ + "]", out);
      }
      return;
    }
    if (!o.getClass().getName().startsWith(MODEL_PACKAGE)) {
      return;
    }
    for (Class<?> c = o.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        Object value = read(f, o);
        // The any-setter map of unknown keys; JSONSchemaProps's own field of that name is the schema keyword.
        if (f.getName().equals("additionalProperties") && value instanceof Map<?, ?> extra) {
          if (!extra.isEmpty()) {
            out.add(path + ": " + extra.keySet());
          }
        } else {
          walk(value, path + "." + f.getName(), out);
        }
      }
    }
  }

  private static Object read(Field f, Object o) {
    try {
      f.setAccessible(true);
      return f.get(o);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read " + f, e);
    }
  }
}

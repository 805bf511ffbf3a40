package dev.sart.crds;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The structural part of what the API server checks against a CRD's openAPIV3Schema: types,
 * required fields, enums, bounds, and fields the schema does not know (which the server would
 * prune, i.e. a sart manifest would silently lose them). CEL rules are not evaluated here; {@link
 * Validation} holds them in Java.
 */
final class Schema {
  private final Map<String, JSONSchemaProps> byKind = new HashMap<>();

  Schema(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      // the CRDs only: deploy/base reaches them through a kustomization.yaml in the same folder
      for (var file :
          files
              .filter(p -> p.getFileName().toString().endsWith(".sart.terassyi.net-v1.yml"))
              .toList()) {
        var crd = Serialization.unmarshal(Files.readString(file), CustomResourceDefinition.class);
        byKind.put(
            crd.getSpec().getNames().getKind(),
            crd.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema());
      }
    }
  }

  boolean knows(String kind) {
    return byKind.containsKey(kind);
  }

  List<String> check(JsonNode object) {
    var errors = new ArrayList<String>();
    var kind = object.path("kind").asText();
    var schema = byKind.get(kind);
    if (schema == null) {
      errors.add("no CRD for kind " + kind);
      return errors;
    }
    for (var part : List.of("spec", "status")) {
      if (object.has(part)) {
        check(part, object.get(part), schema.getProperties().get(part), errors);
      } else if (schema.getRequired() != null && schema.getRequired().contains(part)) {
        errors.add(part + ": required");
      }
    }
    return errors;
  }

  private static void check(
      String path, JsonNode value, JSONSchemaProps schema, List<String> errors) {
    if (schema == null) {
      errors.add(path + ": unknown field");
      return;
    }
    switch (schema.getType()) {
      case "object" -> {
        if (!value.isObject()) {
          errors.add(path + ": must be an object");
          return;
        }
        if (schema.getRequired() != null) {
          for (var name : schema.getRequired()) {
            if (!value.has(name)) {
              errors.add(path + "." + name + ": required");
            }
          }
        }
        if (schema.getMaxProperties() != null && value.size() > schema.getMaxProperties()) {
          errors.add(path + ": more than " + schema.getMaxProperties() + " entries");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
          var field = it.next();
          var childPath = path + "." + field.getKey();
          if (schema.getProperties() != null
              && schema.getProperties().containsKey(field.getKey())) {
            check(childPath, field.getValue(), schema.getProperties().get(field.getKey()), errors);
          } else if (schema.getAdditionalProperties() != null
              && schema.getAdditionalProperties().getSchema() != null) {
            check(
                childPath, field.getValue(), schema.getAdditionalProperties().getSchema(), errors);
          } else if (!Boolean.TRUE.equals(schema.getXKubernetesPreserveUnknownFields())) {
            errors.add(childPath + ": unknown field");
          }
        }
      }
      case "array" -> {
        if (!value.isArray()) {
          errors.add(path + ": must be an array");
          return;
        }
        if (schema.getMaxItems() != null && value.size() > schema.getMaxItems()) {
          errors.add(path + ": more than " + schema.getMaxItems() + " items");
        }
        for (int i = 0; i < value.size(); i++) {
          check(path + "[" + i + "]", value.get(i), schema.getItems().getSchema(), errors);
        }
      }
      case "string" -> {
        if (!value.isTextual()) {
          errors.add(path + ": must be a string");
          return;
        }
        if (schema.getEnum() != null
            && !schema.getEnum().isEmpty()
            && schema.getEnum().stream().noneMatch(e -> e.asText().equals(value.asText()))) {
          errors.add(path + ": must be one of " + schema.getEnum());
        }
        if (schema.getMaxLength() != null && value.asText().length() > schema.getMaxLength()) {
          errors.add(path + ": longer than " + schema.getMaxLength());
        }
        if (schema.getMinLength() != null && value.asText().length() < schema.getMinLength()) {
          errors.add(path + ": shorter than " + schema.getMinLength());
        }
      }
      case "integer" -> {
        if (!value.isIntegralNumber()) {
          errors.add(path + ": must be an integer");
          return;
        }
        if (schema.getMinimum() != null && value.asDouble() < schema.getMinimum()) {
          errors.add(path + ": below " + schema.getMinimum());
        }
        if (schema.getMaximum() != null && value.asDouble() > schema.getMaximum()) {
          errors.add(path + ": above " + schema.getMaximum());
        }
      }
      case "boolean" -> {
        if (!value.isBoolean()) {
          errors.add(path + ": must be a boolean");
        }
      }
      default -> errors.add(path + ": schema type " + schema.getType() + " not checked");
    }
  }
}

package dev.sart.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Printing: JSON and YAML from plain maps (sart's field names), plain text as aligned tables. */
final class Output {
  enum Format {
    plain,
    json,
    yaml
  }

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper YAML =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private Output() {}

  static void structured(PrintWriter out, Format f, Object value) {
    try {
      out.print(
          f == Format.yaml
              ? YAML.writeValueAsString(value)
              : JSON.writeValueAsString(value) + "\n");
      out.flush();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An aligned table: a header row and rows, columns separated by two spaces. */
  static void table(PrintWriter out, List<String> header, List<List<String>> rows) {
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    int[] w = new int[header.size()];
    for (List<String> r : all) {
      for (int i = 0; i < r.size(); i++) {
        w[i] = Math.max(w[i], r.get(i).length());
      }
    }
    for (List<String> r : all) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        String cell = r.get(i);
        sb.append(cell);
        if (i < r.size() - 1) {
          sb.append(" ".repeat(w[i] - cell.length() + 2));
        }
      }
      out.println(sb.toString().stripTrailing());
    }
    out.flush();
  }
}

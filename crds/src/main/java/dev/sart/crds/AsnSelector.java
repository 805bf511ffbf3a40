package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** The node's ASN: the fixed {@code asn}, or the node label {@code sart.terassyi.net/asn}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.from != 'asn' || has(self.asn)",
    message = "from: asn needs asn",
    fieldPath = ".asn")
public record AsnSelector(@Required From from, @Min(1) @Max(4294967295.0) Long asn) {
  public enum From {
    @JsonProperty("asn")
    ASN,
    @JsonProperty("label")
    LABEL
  }
}

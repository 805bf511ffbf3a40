/**
 * The custom resources of {@code sart.terassyi.net/v1alpha2}: the eight kinds of sart with its
 * field names, as thin fabric8 {@code CustomResource} classes with record Spec/Status types.
 *
 * <p>The CRD YAML under {@code crds/manifests/} is generated from these classes at build time; a
 * {@code @ValidationRule} is a CEL rule in the schema (validation that needs only the object
 * itself), checks that need other objects are admission webhooks in {@code kube-controller}.
 */
package dev.sart.crds;

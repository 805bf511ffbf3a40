package dev.sart.crds;

/** The API group, version and the annotation, label and finalizer keys of sart (sart.md §6.2). */
public final class Sart {
  private Sart() {}

  public static final String GROUP = "sart.terassyi.net";
  public static final String VERSION = "v1alpha2";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  // Service annotations
  /** Pool(s) to allocate from, comma-separated; one address per pool. Also on Pod and Namespace. */
  public static final String ADDRESS_POOL_ANNOTATION = "sart.terassyi.net/addresspool";

  /** Requested addresses, comma-separated, each matched to a pool by containment. */
  public static final String LOAD_BALANCER_IPS_ANNOTATION = "sart.terassyi.net/loadBalancerIPs";

  /** MetalLB's key for the same thing, accepted as an alias. */
  public static final String METALLB_LOAD_BALANCER_IPS_ANNOTATION = "metallb.io/loadBalancerIPs";

  /**
   * Services with the same value may share an address when their ports do not clash (MetalLB's
   * key).
   */
  public static final String ALLOW_SHARED_IP_ANNOTATION = "metallb.io/allow-shared-ip";

  /** The same, under sart's group. */
  public static final String SART_ALLOW_SHARED_IP_ANNOTATION = "sart.terassyi.net/allow-shared-ip";

  /** Peer groups a Service is announced to, comma-separated. */
  public static final String PEER_GROUP_ANNOTATION = "bgppeer.sart.terassyi.net/group";

  /**
   * Set by the mutating webhook when a Service stops being a LoadBalancer: the addresses to
   * release.
   */
  public static final String RELEASE_ANNOTATION = "service.sart.terassyi.net/release";

  /**
   * BGP communities of a Service's advertisements, comma-separated, each {@code A:B} or {@code
   * large:A:B:C} (the syntax of MetalLB's BGPAdvertisement {@code communities}; MetalLB has no
   * Service annotation for them), added to those of the address's pool. Ours.
   */
  public static final String COMMUNITIES_ANNOTATION = "sart.terassyi.net/communities";

  /** LOCAL_PREF of a Service's advertisements (iBGP peers only), instead of the pool's. Ours. */
  public static final String LOCAL_PREF_ANNOTATION = "sart.terassyi.net/localPref";

  /** MULTI_EXIT_DISC of a Service's advertisements, instead of the pool's. Ours. */
  public static final String MED_ANNOTATION = "sart.terassyi.net/med";

  /** The {@code spec.loadBalancerClass} this implementation serves. */
  public static final String LOAD_BALANCER_CLASS = "sart.terassyi.net/lb";

  // EndpointSlice annotations and label (sart wrote them to wake its own watchers)
  /** On the EndpointSlices of a LoadBalancer Service: its externalTrafficPolicy. */
  public static final String SERVICE_ETP_ANNOTATION = "service.sart.terassyi.net/etp";

  /** On the EndpointSlices of a LoadBalancer Service: its addresses, comma-separated. */
  public static final String SERVICE_ALLOCATION_ANNOTATION = "service.sart.terassyi.net/allocation";

  /** On EndpointSlices: the BGPPeer whose session came up last (the agent writes it). */
  public static final String ENDPOINTSLICE_TRIGGER_LABEL =
      "endpointslice.sart.terassyi.net/triggered-by";

  // labels
  public static final String ADDRESS_POOL_LABEL = "sart.terassyi.net/addresspool";
  public static final String ADDRESS_BLOCK_NODE_LABEL = "addressblock.sart.terassyi.net/node";
  public static final String BGP_PEER_NODE_LABEL = "bgppeer.sart.terassyi.net/node";
  public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

  /**
   * Kubernetes' well-known Node label that takes a node out of external load balancers (its
   * presence, whatever its value, as the service controller reads it): the peers of such a node
   * announce no Service address.
   */
  public static final String EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL =
      "node.kubernetes.io/exclude-from-external-load-balancers";

  /** Node labels the ClusterBGP selectors read. */
  public static final String ASN_NODE_LABEL = "sart.terassyi.net/asn";

  public static final String ROUTER_ID_NODE_LABEL = "sart.terassyi.net/router-id";

  // finalizers
  public static final String ADDRESS_POOL_FINALIZER = "addresspool.sart.terassyi.net/finalizer";
  public static final String ADDRESS_BLOCK_CONTROLLER_FINALIZER =
      "controller.addressblock.sart.terassyi.net/finalizer";
  public static final String ADDRESS_BLOCK_AGENT_FINALIZER =
      "agent.addressblock.sart.terassyi.net/finalizer";
  public static final String BLOCK_REQUEST_FINALIZER = "blockrequest.sart.terassyi.net/finalizer";
  public static final String CLUSTER_BGP_FINALIZER = "clusterbgp.sart.terassyi.net/finalizer";
  public static final String NODE_BGP_FINALIZER = "nodebgp.sart.terassyi.net/finalizer";
  public static final String BGP_PEER_FINALIZER = "bgppeer.sart.terassyi.net/finalizer";
  public static final String BGP_ADVERTISEMENT_FINALIZER =
      "bgpadvertisement.sart.terassyi.net/finalizer";

  /** On Services that hold an address of ours (and only those). */
  public static final String SERVICE_FINALIZER = "service.sart.terassyi.net/finalizer";

  // egress (ours; coil's keys accepted as aliases)
  /**
   * A client pod opts in with {@code egress.sart.terassyi.net/<namespace>: <egress>[,<egress>...]}.
   */
  public static final String EGRESS_ANNOTATION_PREFIX = "egress.sart.terassyi.net/";

  /** coil's key, {@code egress.coil.cybozu.com/<namespace>}, accepted as an alias. */
  public static final String COIL_EGRESS_ANNOTATION_PREFIX = "egress.coil.cybozu.com/";

  /** On an Egress's Deployment, Service and pods: the Egress's name. */
  public static final String EGRESS_NAME_LABEL = "egress.sart.terassyi.net/name";

  /**
   * On the one egress pod that holds the Egress's static address ({@code "true"}): the Service
   * selects only it, and its node announces the address.
   */
  public static final String EGRESS_GATEWAY_LABEL = "egress.sart.terassyi.net/gateway";

  /**
   * On each egress pod, set by its {@code sartd egress}: the tunnel mode it runs ({@code vxlan},
   * {@code fou}), chosen at start-up when the Egress has no {@code tunnel}; the client pods' agents
   * set up the same. A label, not an annotation: {@code egress.sart.terassyi.net/<namespace>}
   * annotations are the clients' opt-in.
   */
  public static final String EGRESS_TUNNEL_LABEL = "egress.sart.terassyi.net/tunnel";
}

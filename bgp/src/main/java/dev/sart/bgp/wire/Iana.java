package dev.sart.bgp.wire;

/**
 * Every IANA code point the codec uses, in one place (IANA "Border Gateway Protocol (BGP)
 * Parameters", "Capability Codes" and "Address Family Numbers" registries).
 */
public final class Iana {

  private Iana() {}

  /** RFC 4271 §4.1 and RFC 2918 §3: message types. */
  public static final class MessageType {
    public static final int OPEN = 1;
    public static final int UPDATE = 2;
    public static final int NOTIFICATION = 3;
    public static final int KEEPALIVE = 4;
    public static final int ROUTE_REFRESH = 5;

    private MessageType() {}
  }

  /** RFC 4271 §4.2 (optional parameter 2 is RFC 5492's), RFC 9072 §2. */
  public static final class OptionalParameter {
    public static final int CAPABILITIES = 2;

    /** RFC 9072: the "Non-Ext OP Type" that announces the extended parameters length. */
    public static final int EXTENDED_LENGTH = 255;

    private OptionalParameter() {}
  }

  /** Capability codes. */
  public static final class CapabilityCode {
    public static final int MULTIPROTOCOL = 1; // RFC 4760
    public static final int ROUTE_REFRESH = 2; // RFC 2918
    public static final int EXTENDED_NEXT_HOP = 5; // RFC 8950
    public static final int EXTENDED_MESSAGE = 6; // RFC 8654
    public static final int ROLE = 9; // RFC 9234
    public static final int GRACEFUL_RESTART = 64; // RFC 4724
    public static final int FOUR_OCTET_AS = 65; // RFC 6793
    public static final int ADD_PATH = 69; // RFC 7911
    public static final int ENHANCED_ROUTE_REFRESH = 70; // RFC 7313
    public static final int LONG_LIVED_GRACEFUL_RESTART = 71; // RFC 9494
    public static final int FQDN = 73; // draft-walton-bgp-hostname-capability

    private CapabilityCode() {}
  }

  /** Path attribute type codes. */
  public static final class AttributeType {
    public static final int ORIGIN = 1; // RFC 4271
    public static final int AS_PATH = 2; // RFC 4271
    public static final int NEXT_HOP = 3; // RFC 4271
    public static final int MULTI_EXIT_DISC = 4; // RFC 4271
    public static final int LOCAL_PREF = 5; // RFC 4271
    public static final int ATOMIC_AGGREGATE = 6; // RFC 4271
    public static final int AGGREGATOR = 7; // RFC 4271
    public static final int COMMUNITIES = 8; // RFC 1997
    public static final int ORIGINATOR_ID = 9; // RFC 4456
    public static final int CLUSTER_LIST = 10; // RFC 4456
    public static final int MP_REACH_NLRI = 14; // RFC 4760
    public static final int MP_UNREACH_NLRI = 15; // RFC 4760
    public static final int EXTENDED_COMMUNITIES = 16; // RFC 4360
    public static final int AS4_PATH = 17; // RFC 6793
    public static final int AS4_AGGREGATOR = 18; // RFC 6793
    public static final int LARGE_COMMUNITY = 32; // RFC 8092
    public static final int ONLY_TO_CUSTOMER = 35; // RFC 9234

    private AttributeType() {}
  }

  /** RFC 4271 §4.3: the high-order bits of the Attribute Flags octet. */
  public static final class AttributeFlag {
    public static final int OPTIONAL = 0x80;
    public static final int TRANSITIVE = 0x40;
    public static final int PARTIAL = 0x20;
    public static final int EXTENDED_LENGTH = 0x10;

    public static final int WELL_KNOWN = TRANSITIVE;
    public static final int OPTIONAL_TRANSITIVE = OPTIONAL | TRANSITIVE;
    public static final int OPTIONAL_NON_TRANSITIVE = OPTIONAL;

    private AttributeFlag() {}
  }

  /** Address Family Numbers. */
  public static final class Afi {
    public static final int IPV4 = 1;
    public static final int IPV6 = 2;

    private Afi() {}
  }

  /** Subsequent Address Family Identifiers. */
  public static final class Safi {
    public static final int UNICAST = 1;
    public static final int MULTICAST = 2;

    private Safi() {}
  }

  /** RFC 4271 §4.3 AS_PATH segment types, RFC 5065 §3 confederation segment types. */
  public static final class AsPathSegmentType {
    public static final int AS_SET = 1;
    public static final int AS_SEQUENCE = 2;
    public static final int AS_CONFED_SEQUENCE = 3;
    public static final int AS_CONFED_SET = 4;

    private AsPathSegmentType() {}
  }

  /** RFC 6793 §9: the 2-octet stand-in for a 4-octet AS number. */
  public static final int AS_TRANS = 23456;

  /** RFC 2918 §3 and RFC 7313 §3: ROUTE-REFRESH message subtypes. */
  public static final class RouteRefreshSubtype {
    public static final int NORMAL = 0;
    public static final int BEGINNING_OF_ROUTE_REFRESH = 1;
    public static final int END_OF_ROUTE_REFRESH = 2;

    private RouteRefreshSubtype() {}
  }

  /** RFC 9234 §4.1: BGP Role values. */
  public static final class Role {
    public static final int PROVIDER = 0;
    public static final int ROUTE_SERVER = 1;
    public static final int ROUTE_SERVER_CLIENT = 2;
    public static final int CUSTOMER = 3;
    public static final int PEER = 4;

    private Role() {}
  }

  /** RFC 1997, RFC 7999, RFC 8326, RFC 8642, RFC 9494: well-known communities. */
  public static final class WellKnownCommunity {
    public static final int GRACEFUL_SHUTDOWN = 0xFFFF_0000; // RFC 8326
    public static final int ACCEPT_OWN = 0xFFFF_0001; // RFC 7611
    public static final int LLGR_STALE = 0xFFFF_0006; // RFC 9494
    public static final int NO_LLGR = 0xFFFF_0007; // RFC 9494
    public static final int BLACKHOLE = 0xFFFF_029A; // RFC 7999
    public static final int NO_EXPORT = 0xFFFF_FF01; // RFC 1997
    public static final int NO_ADVERTISE = 0xFFFF_FF02; // RFC 1997
    public static final int NO_EXPORT_SUBCONFED = 0xFFFF_FF03; // RFC 1997
    public static final int NO_PEER = 0xFFFF_FF04; // RFC 3765

    private WellKnownCommunity() {}
  }

  /** NOTIFICATION error codes and subcodes. */
  public static final class ErrorCode {
    public static final int MESSAGE_HEADER = 1; // RFC 4271 §4.5
    public static final int OPEN_MESSAGE = 2;
    public static final int UPDATE_MESSAGE = 3;
    public static final int HOLD_TIMER_EXPIRED = 4;
    public static final int FSM = 5;
    public static final int CEASE = 6;
    public static final int ROUTE_REFRESH_MESSAGE = 7; // RFC 7313 §5
    public static final int SEND_HOLD_TIMER_EXPIRED = 8; // RFC 9687

    private ErrorCode() {}
  }

  /** Subcodes, grouped by error code; 0 means "unspecific" under every code. */
  public static final class ErrorSubcode {
    public static final int UNSPECIFIC = 0;

    // 1: Message Header Error (RFC 4271 §6.1)
    public static final int CONNECTION_NOT_SYNCHRONIZED = 1;
    public static final int BAD_MESSAGE_LENGTH = 2;
    public static final int BAD_MESSAGE_TYPE = 3;

    // 2: OPEN Message Error (RFC 4271 §6.2, RFC 5492, RFC 9234)
    public static final int UNSUPPORTED_VERSION_NUMBER = 1;
    public static final int BAD_PEER_AS = 2;
    public static final int BAD_BGP_IDENTIFIER = 3;
    public static final int UNSUPPORTED_OPTIONAL_PARAMETER = 4;
    public static final int UNACCEPTABLE_HOLD_TIME = 6;
    public static final int UNSUPPORTED_CAPABILITY = 7;
    public static final int ROLE_MISMATCH = 11;

    // 3: UPDATE Message Error (RFC 4271 §6.3)
    public static final int MALFORMED_ATTRIBUTE_LIST = 1;
    public static final int UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE = 2;
    public static final int MISSING_WELL_KNOWN_ATTRIBUTE = 3;
    public static final int ATTRIBUTE_FLAGS_ERROR = 4;
    public static final int ATTRIBUTE_LENGTH_ERROR = 5;
    public static final int INVALID_ORIGIN_ATTRIBUTE = 6;
    public static final int INVALID_NEXT_HOP_ATTRIBUTE = 8;
    public static final int OPTIONAL_ATTRIBUTE_ERROR = 9;
    public static final int INVALID_NETWORK_FIELD = 10;
    public static final int MALFORMED_AS_PATH = 11;

    // 5: Finite State Machine Error (RFC 6608)
    public static final int UNEXPECTED_MESSAGE_IN_OPEN_SENT = 1;
    public static final int UNEXPECTED_MESSAGE_IN_OPEN_CONFIRM = 2;
    public static final int UNEXPECTED_MESSAGE_IN_ESTABLISHED = 3;

    // 6: Cease (RFC 4486, RFC 8538, RFC 9384)
    public static final int MAXIMUM_NUMBER_OF_PREFIXES_REACHED = 1;
    public static final int ADMINISTRATIVE_SHUTDOWN = 2;
    public static final int PEER_DE_CONFIGURED = 3;
    public static final int ADMINISTRATIVE_RESET = 4;
    public static final int CONNECTION_REJECTED = 5;
    public static final int OTHER_CONFIGURATION_CHANGE = 6;
    public static final int CONNECTION_COLLISION_RESOLUTION = 7;
    public static final int OUT_OF_RESOURCES = 8;
    public static final int HARD_RESET = 9;
    public static final int BFD_DOWN = 10;

    // 7: ROUTE-REFRESH Message Error (RFC 7313 §5)
    public static final int INVALID_MESSAGE_LENGTH = 1;

    private ErrorSubcode() {}
  }
}

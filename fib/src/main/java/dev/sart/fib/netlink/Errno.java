package dev.sart.fib.netlink;

import java.util.Map;

/**
 * The symbolic names of the errno values rtnetlink returns (asm-generic/errno-base.h and
 * asm-generic/errno.h), so that an error reads "File exists (EEXIST)".
 */
public final class Errno {
  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int ESRCH = 3;
  public static final int EINTR = 4;
  public static final int EBADF = 9;
  public static final int EAGAIN = 11;
  public static final int ENOMEM = 12;
  public static final int EACCES = 13;
  public static final int EBUSY = 16;
  public static final int EEXIST = 17;
  public static final int ENODEV = 19;
  public static final int EINVAL = 22;
  public static final int ERANGE = 34;
  public static final int EOPNOTSUPP = 95;
  public static final int EAFNOSUPPORT = 97;
  public static final int EADDRINUSE = 98;
  public static final int EADDRNOTAVAIL = 99;
  public static final int ENETDOWN = 100;
  public static final int ENETUNREACH = 101;
  public static final int ENOBUFS = 105;
  public static final int EHOSTUNREACH = 113;

  private static final Map<Integer, String> NAMES =
      Map.ofEntries(
          Map.entry(EPERM, "EPERM"),
          Map.entry(ENOENT, "ENOENT"),
          Map.entry(ESRCH, "ESRCH"),
          Map.entry(EINTR, "EINTR"),
          Map.entry(5, "EIO"),
          Map.entry(6, "ENXIO"),
          Map.entry(7, "E2BIG"),
          Map.entry(EBADF, "EBADF"),
          Map.entry(EAGAIN, "EAGAIN"),
          Map.entry(ENOMEM, "ENOMEM"),
          Map.entry(EACCES, "EACCES"),
          Map.entry(14, "EFAULT"),
          Map.entry(EBUSY, "EBUSY"),
          Map.entry(EEXIST, "EEXIST"),
          Map.entry(18, "EXDEV"),
          Map.entry(ENODEV, "ENODEV"),
          Map.entry(20, "ENOTDIR"),
          Map.entry(21, "EISDIR"),
          Map.entry(EINVAL, "EINVAL"),
          Map.entry(23, "ENFILE"),
          Map.entry(24, "EMFILE"),
          Map.entry(28, "ENOSPC"),
          Map.entry(ERANGE, "ERANGE"),
          Map.entry(36, "ENAMETOOLONG"),
          Map.entry(38, "ENOSYS"),
          Map.entry(61, "ENODATA"),
          Map.entry(71, "EPROTO"),
          Map.entry(75, "EOVERFLOW"),
          Map.entry(90, "EMSGSIZE"),
          Map.entry(93, "EPROTONOSUPPORT"),
          Map.entry(EOPNOTSUPP, "EOPNOTSUPP"),
          Map.entry(EAFNOSUPPORT, "EAFNOSUPPORT"),
          Map.entry(EADDRINUSE, "EADDRINUSE"),
          Map.entry(EADDRNOTAVAIL, "EADDRNOTAVAIL"),
          Map.entry(ENETDOWN, "ENETDOWN"),
          Map.entry(ENETUNREACH, "ENETUNREACH"),
          Map.entry(ENOBUFS, "ENOBUFS"),
          Map.entry(110, "ETIMEDOUT"),
          Map.entry(EHOSTUNREACH, "EHOSTUNREACH"),
          Map.entry(125, "ECANCELED"),
          Map.entry(524, "ENOTSUPP"));

  private Errno() {}

  /** "EEXIST", or "errno 123" for a value without a name here. */
  public static String name(int errno) {
    return NAMES.getOrDefault(errno, "errno " + errno);
  }

  /** "File exists (EEXIST)". */
  public static String describe(int errno) {
    String name = name(errno);
    return errno == 524
        ? "Operation not supported (" + name + ")"
        : Libc.strerror(errno) + " (" + name + ")";
  }
}

package dev.sart.cni;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.security.Provider;
import java.security.SecureRandomSpi;
import sun.nio.ch.DefaultSelectorProvider;
import sun.security.jca.ProviderList;
import sun.security.jca.Providers;

/**
 * Opens the plugin's UNIX-domain socket channel without paying for the JDK's security providers.
 *
 * <p>The JDK's UNIX-domain socket support ({@code sun.nio.ch.UnixDomainSockets}) asks the security
 * providers for a {@code SecureRandom} ("NativePRNGNonBlocking") when its class initialises; it
 * only ever uses it to name server sockets bound to no address, which a client never does. In the
 * plugin's interpreted, short-lived JVM that lookup (building the SUN provider and its NativePRNG,
 * a reflective constructor call) was measured at ~7 ms of CPU per forwarded call, about a quarter
 * of what forwarding costs over VERSION. So the first channel is opened with a provider list, for
 * this thread only and only while the class initialises, that holds one provider answering every
 * {@code SecureRandom} with bytes from {@code /dev/urandom} (the kernel's CSPRNG, the source
 * NativePRNGNonBlocking reads too).
 *
 * <p>The channel comes from the platform's default {@code SelectorProvider} directly: {@code
 * SocketChannel.open} asks {@code SelectorProvider.provider()}, which first looks for another
 * provider with a {@code ServiceLoader} over the class path and the runtime image, opening the
 * plugin's jar (zip, inflater, {@code URLClassPath}) and the {@code jimage} reader for a file that
 * is never there: ~4 ms of a forwarded call on a quiet machine (class-initialisation timeline,
 * {@code -Xlog:class+init}), more than the rest of the socket's set-up.
 *
 * <p>Both are JDK-internal API ({@code sun.security.jca}, {@code sun.nio.ch}): the launcher and the
 * AOT training run pass {@code --add-exports} for both packages. Without them (the jar run by hand,
 * another JDK) the channel is opened the ordinary way.
 */
final class UnixSockets {
  private UnixSockets() {}

  static SocketChannel open() throws IOException {
    ProviderList previous;
    try {
      previous = Providers.beginThreadProviderList(ProviderList.newList(new UrandomProvider()));
    } catch (IllegalAccessError | NoClassDefFoundError e) {
      return SocketChannel.open(StandardProtocolFamily.UNIX);
    }
    try {
      return DefaultSelectorProvider.get().openSocketChannel(StandardProtocolFamily.UNIX);
    } catch (IllegalAccessError | NoClassDefFoundError e) {
      return SocketChannel.open(StandardProtocolFamily.UNIX);
    } finally {
      Providers.endThreadProviderList(previous);
    }
  }

  /**
   * Closes {@code channel} in non-blocking mode: the blocking-mode close asks {@code
   * sun.nio.ch.Net} whether to shut the output down first, and that class's initialisation (IPv6
   * and socket-option probes) cost ~1.7 ms here, for a socket that is UNIX-domain anyway. A channel
   * closed already (by the watchdog) is fine.
   */
  static void close(SocketChannel channel) {
    try {
      channel.configureBlocking(false);
    } catch (IOException e) {
      // closed already, or cannot switch: close as it is
    }
    try {
      channel.close();
    } catch (IOException e) {
      // nothing left to do: the process ends next
    }
  }

  /** One provider: SecureRandom of any name, from /dev/urandom. */
  static final class UrandomProvider extends Provider {
    private static final long serialVersionUID = 1L;

    UrandomProvider() {
      super("SartCniUrandom", "1", "SecureRandom from /dev/urandom (sart-cni)");
    }

    @Override
    public Service getService(String type, String algorithm) {
      if (!"SecureRandom".equals(type)) {
        return null;
      }
      return new Service(this, type, algorithm, Urandom.class.getName(), null, null) {
        @Override
        public Object newInstance(Object constructorParameter) {
          return new Urandom();
        }
      };
    }
  }

  /** Bytes from /dev/urandom; the file is opened on first use (for the socket code: never). */
  static final class Urandom extends SecureRandomSpi {
    private static final long serialVersionUID = 1L;
    private transient InputStream in;

    @Override
    protected void engineSetSeed(byte[] seed) {
      // the kernel's pool needs no seed from us
    }

    @Override
    protected synchronized void engineNextBytes(byte[] bytes) {
      try {
        if (in == null) {
          in = new FileInputStream("/dev/urandom");
        }
        if (in.readNBytes(bytes, 0, bytes.length) != bytes.length) {
          throw new IOException("short read from /dev/urandom");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    protected byte[] engineGenerateSeed(int numBytes) {
      byte[] b = new byte[numBytes];
      engineNextBytes(b);
      return b;
    }
  }
}

package org.roce4j.examples;

import org.roce4j.verbs.RdmaDevice;

/** Run by {@link WithoutLinkLibrariesTest} in a JVM without Netty: opening a udp device must say what is missing. */
final class UdpWithoutLinkLibraries
{
    private UdpWithoutLinkLibraries()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (RdmaDevice device = RdmaDevice.open("udp:127.0.0.1"))
        {
            System.out.println("opened " + device);
        }
        catch (final IllegalStateException ex)
        {
            System.out.println(ex.getMessage());
        }
    }
}

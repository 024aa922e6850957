package org.roce4j.cm.rdmacm;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.agrona.collections.Int2ObjectHashMap;
import org.roce4j.cm.ib.CmListener;
import org.roce4j.cm.ib.IbCm;
import org.roce4j.wire.mad.RdmaCmServiceId;

/**
 * {@link RdmaCm}'s listening ids by port space and port (cma.c's bind lists of the TCP and UDP port spaces): binding
 * with the kernel's overlap rules, one IB CM listen per port (the service ID of its port space), and finding the id a
 * REQ's or SIDR_REQ's destination address goes to. CM thread only.
 */
final class RdmaCmListeners
{
    private final IbCm cm;
    private final CmListener onRequest;
    private final CmListener onSidrRequest;
    private final RdmaCmAddresses addresses;
    private final String deviceName;
    private final Int2ObjectHashMap<List<RdmaCmId>> listenersByPort = new Int2ObjectHashMap<>();

    /**
     * @param cm         the IB CM to listen on.
     * @param onRequest  decides about the REQs of every TCP port listened on.
     * @param onSidrRequest decides about the SIDR_REQs of every UDP port listened on.
     * @param addresses  the device's addresses.
     * @param deviceName for error messages.
     */
    RdmaCmListeners(final IbCm cm, final CmListener onRequest, final CmListener onSidrRequest,
        final RdmaCmAddresses addresses, final String deviceName)
    {
        this.cm = cm;
        this.onRequest = onRequest;
        this.onSidrRequest = onSidrRequest;
        this.addresses = addresses;
        this.deviceName = deviceName;
    }

    /**
     * @param id      a listening id.
     * @param address what it binds to: one of the device's addresses or the wildcard, and a port.
     * @throws IllegalArgumentException when the address is not the device's.
     * @throws IllegalStateException    when another id on the port overlaps it.
     */
    void bind(final RdmaCmId id, final InetSocketAddress address)
    {
        final InetAddress ip = address.getAddress();
        if (!ip.isAnyLocalAddress() && !addresses.isOurs(ip))
        {
            throw new IllegalArgumentException("cannot bind to " + ip.getHostAddress() + ": not an address of " +
                deviceName + " (" + addresses.describe() + ")");
        }
        final int port = address.getPort();
        final int portSpace = id.portSpace();
        List<RdmaCmId> onPort = listenersByPort.get(key(portSpace, port));
        if (null != onPort)
        {
            for (final RdmaCmId other : onPort)
            {
                final InetAddress bound = other.localAddress().getAddress();
                if (bound.isAnyLocalAddress() || ip.isAnyLocalAddress() || bound.equals(ip))
                {
                    throw new IllegalStateException("address in use: " + ip.getHostAddress() + " port " + port +
                        " overlaps " + other);
                }
            }
        }
        else
        {
            onPort = new ArrayList<>();
            listenersByPort.put(key(portSpace, port), onPort);
            cm.listen(RdmaCmServiceId.serviceId(portSpace, port),
                RdmaCmServiceId.PS_UDP == portSpace ? onSidrRequest : onRequest);
        }
        onPort.add(id);
    }

    /**
     * Take an id off its port; the last one off a port ends the IB CM listen on it.
     *
     * @param id a listening id.
     */
    void unbind(final RdmaCmId id)
    {
        final int port = id.localAddress().getPort();
        final List<RdmaCmId> onPort = listenersByPort.get(key(id.portSpace(), port));
        if (null != onPort)
        {
            onPort.remove(id);
            if (onPort.isEmpty())
            {
                listenersByPort.remove(key(id.portSpace(), port));
                cm.cancelListen(RdmaCmServiceId.serviceId(id.portSpace(), port));
            }
        }
    }

    /**
     * @param portSpace   the port space of the REQ's (TCP) or SIDR_REQ's (UDP) service ID.
     * @param port        its destination port.
     * @param destination its destination address.
     * @return the id bound to that address on the port, else a wildcard that takes it, else null.
     */
    RdmaCmId find(final int portSpace, final int port, final InetAddress destination)
    {
        final List<RdmaCmId> onPort = listenersByPort.get(key(portSpace, port));
        if (null == onPort)
        {
            return null;
        }
        RdmaCmId wildcard = null;
        for (final RdmaCmId id : onPort)
        {
            final InetAddress bound = id.localAddress().getAddress();
            if (bound.equals(destination))
            {
                return id;
            }
            // An IPv4 wildcard takes IPv4 only; an IPv6 wildcard takes both (Linux's default bindv6only=0).
            if (bound.isAnyLocalAddress() && (bound instanceof Inet6Address || destination instanceof Inet4Address))
            {
                wildcard = id;
            }
        }
        return wildcard;
    }

    /** The port space in the high 16 bits, the port in the low 16, as in the service ID. */
    private static int key(final int portSpace, final int port)
    {
        return (portSpace << 16) | port;
    }
}

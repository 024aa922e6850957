package org.roce4j.ib;

import org.roce4j.wire.addr.Gid;
import org.roce4j.wire.header.Ipv6Header;

/**
 * Address handle attributes (struct ibv_ah_attr with its GRH, ibv_global_route): on RoCE every address is global,
 * so the destination GID and the local GID index are what matter.
 */
public final class AhAttributes
{
    private long dgidHigh;
    private long dgidLow;
    private int sgidIndex;
    private int hopLimit = 64;
    private int trafficClass;
    private int flowLabel;
    private int serviceLevel;
    private int portNum = 1;

    /**
     * @param high 64 bits of the destination GID.
     * @param low  64 bits of the destination GID.
     * @return this.
     */
    public AhAttributes dgid(final long high, final long low)
    {
        this.dgidHigh = high;
        this.dgidLow = low;
        return this;
    }

    /**
     * @param gid the destination GID, e.g. {@code Gid.parse("10.0.0.2")} or the peer's {@code queryGid(1)}.
     * @return this.
     * @throws NullPointerException when gid is null.
     */
    public AhAttributes dgid(final Gid gid)
    {
        if (null == gid)
        {
            throw new NullPointerException("gid must not be null");
        }
        return dgid(gid.high(), gid.low());
    }

    /**
     * @return the destination GID.
     */
    public Gid dgid()
    {
        return new Gid(dgidHigh, dgidLow);
    }

    /**
     * @param index of the local GID to send from (rxe: 0 link-local IPv6, 1 IPv4-mapped).
     * @return this.
     */
    public AhAttributes sgidIndex(final int index)
    {
        this.sgidIndex = index;
        return this;
    }

    /**
     * @param hopLimit IPv4 TTL / IPv6 hop limit.
     * @return this.
     */
    public AhAttributes hopLimit(final int hopLimit)
    {
        this.hopLimit = hopLimit;
        return this;
    }

    /**
     * @param trafficClass IPv4 TOS / IPv6 traffic class.
     * @return this.
     */
    public AhAttributes trafficClass(final int trafficClass)
    {
        this.trafficClass = trafficClass;
        return this;
    }

    /**
     * @param flowLabel IPv6 flow label.
     * @return this.
     */
    public AhAttributes flowLabel(final int flowLabel)
    {
        this.flowLabel = flowLabel;
        return this;
    }

    /**
     * @param serviceLevel 0..15.
     * @return this.
     */
    public AhAttributes serviceLevel(final int serviceLevel)
    {
        this.serviceLevel = serviceLevel;
        return this;
    }

    /**
     * @param portNum port (always 1 on a roce4j device).
     * @return this.
     */
    public AhAttributes portNum(final int portNum)
    {
        this.portNum = portNum;
        return this;
    }

    /**
     * @return high 64 bits of the destination GID.
     */
    public long dgidHigh()
    {
        return dgidHigh;
    }

    /**
     * @return low 64 bits of the destination GID.
     */
    public long dgidLow()
    {
        return dgidLow;
    }

    /**
     * @return local GID index.
     */
    public int sgidIndex()
    {
        return sgidIndex;
    }

    /**
     * @return hop limit.
     */
    public int hopLimit()
    {
        return hopLimit;
    }

    /**
     * @return traffic class.
     */
    public int trafficClass()
    {
        return trafficClass;
    }

    /**
     * @return flow label.
     */
    public int flowLabel()
    {
        return flowLabel;
    }

    /**
     * @return service level.
     */
    public int serviceLevel()
    {
        return serviceLevel;
    }

    /**
     * @return port number.
     */
    public int portNum()
    {
        return portNum;
    }

    /**
     * @param other to copy.
     * @return this.
     */
    public AhAttributes copyFrom(final AhAttributes other)
    {
        dgidHigh = other.dgidHigh;
        dgidLow = other.dgidLow;
        sgidIndex = other.sgidIndex;
        hopLimit = other.hopLimit;
        trafficClass = other.trafficClass;
        flowLabel = other.flowLabel;
        serviceLevel = other.serviceLevel;
        portNum = other.portNum;
        return this;
    }

    /**
     * @return e.g. {@code ah{dgid=::ffff:10.77.0.2 sgid_index=1 hop_limit=64 tc=0}}.
     */
    public String toString()
    {
        return "ah{dgid=" + Ipv6Header.addressToString(dgidHigh, dgidLow) + " sgid_index=" + sgidIndex +
            " hop_limit=" + hopLimit + " tc=" + trafficClass + " fl=" + flowLabel + " sl=" + serviceLevel + "}";
    }
}

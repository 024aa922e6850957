package org.roce4j.verbs;

/**
 * One scatter/gather element (struct ibv_sge): a byte range of registered memory named by address and lkey.
 * Mutable and reused inside work requests.
 */
public final class ScatterGatherElement
{
    private long addr;
    private int length;
    private int lkey;

    /**
     * @param addr   I/O virtual address of the first byte.
     * @param length bytes.
     * @param lkey   local key of the region holding them.
     * @return this.
     */
    public ScatterGatherElement set(final long addr, final int length, final int lkey)
    {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /**
     * @param region registered memory.
     * @param offset byte offset into it.
     * @param length bytes.
     * @return this.
     */
    public ScatterGatherElement set(final MemoryRegion region, final long offset, final int length)
    {
        return set(region.address(offset), length, region.lkey());
    }

    /**
     * @return addr.
     */
    public long addr()
    {
        return addr;
    }

    /**
     * @return length.
     */
    public int length()
    {
        return length;
    }

    /**
     * @return lkey.
     */
    public int lkey()
    {
        return lkey;
    }

    /**
     * @return e.g. {@code sge{addr=0x7f.. len=64 lkey=0x1234}}.
     */
    public String toString()
    {
        return "sge{addr=0x" + Long.toHexString(addr) + " len=" + length + " lkey=0x" + Integer.toHexString(lkey) + "}";
    }
}

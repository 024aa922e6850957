package org.roce4j.cm.perftest;

/**
 * A bandwidth result as perftest's BW tools exchange it at the end of a run (xchg_bw_reports in
 * perftest_communication.c, {@code struct bw_report_data}): the client of a one-way test sends its figures so the
 * server prints them; in a bidirectional test each side adds the peer's figures to its own.
 *
 * <p>On the wire each field is its own exchange of 8 big-endian bytes, in this order: size ({@code unsigned long}),
 * iterations ({@code uint64_t} for peers of version 5.33 and up), peak bandwidth, average bandwidth and message rate
 * (IEEE 754 doubles, byte-swapped by hton_double). The per-port fields follow only with --report-per-port, which
 * roce4j does not offer. perftest's server of a one-way test sends whatever its report structure held
 * (uninitialised stack memory): those bytes carry no meaning and are read and ignored.
 *
 * @param size       message size in bytes.
 * @param iterations messages counted.
 * @param bwPeak     peak bandwidth, in the run's unit (MiB/s, or Gb/s with --report_gbits).
 * @param bwAvg      average bandwidth, same unit.
 * @param msgRate    average message rate in millions of messages per second.
 */
public record PerftestReport(long size, long iterations, double bwPeak, double bwAvg, double msgRate)
{
    /** Exchanges that make up one report (size, iterations, peak, average, message rate). */
    public static final int FIELDS = 5;
    /** Bytes of each field on the wire. */
    public static final int FIELD_BYTES = 8;

    /**
     * @param index 0..4: size, iterations, peak, average, message rate.
     * @return that field as perftest puts it on the wire (8 bytes, big-endian).
     */
    public byte[] field(final int index)
    {
        final long bits;
        switch (index)
        {
            case 0:
                bits = size;
                break;
            case 1:
                bits = iterations;
                break;
            case 2:
                bits = Double.doubleToRawLongBits(bwPeak);
                break;
            case 3:
                bits = Double.doubleToRawLongBits(bwAvg);
                break;
            case 4:
                bits = Double.doubleToRawLongBits(msgRate);
                break;
            default:
                throw new IllegalArgumentException("a report has fields 0.." + (FIELDS - 1) + ", got " + index);
        }
        final byte[] bytes = new byte[FIELD_BYTES];
        for (int i = 0; i < FIELD_BYTES; i++)
        {
            bytes[i] = (byte)(bits >>> (56 - 8 * i));
        }
        return bytes;
    }

    /**
     * @param fields the five received 8-byte fields, in wire order.
     * @return the report.
     * @throws IllegalArgumentException when there are not five fields of eight bytes.
     */
    public static PerftestReport fromFields(final byte[][] fields)
    {
        if (FIELDS != fields.length)
        {
            throw new IllegalArgumentException("a report has " + FIELDS + " fields, got " + fields.length);
        }
        final long[] values = new long[FIELDS];
        for (int f = 0; f < FIELDS; f++)
        {
            if (FIELD_BYTES != fields[f].length)
            {
                throw new IllegalArgumentException("report field " + f + " must be " + FIELD_BYTES + " bytes, got " +
                    fields[f].length);
            }
            long value = 0;
            for (int i = 0; i < FIELD_BYTES; i++)
            {
                value = (value << 8) | (fields[f][i] & 0xFF);
            }
            values[f] = value;
        }
        return new PerftestReport(values[0], values[1], Double.longBitsToDouble(values[2]),
            Double.longBitsToDouble(values[3]), Double.longBitsToDouble(values[4]));
    }
}

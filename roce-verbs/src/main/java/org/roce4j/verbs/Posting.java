package org.roce4j.verbs;

import org.roce4j.transport.provider.RqOps;

/**
 * Checks and queueing shared by QP receive queues and shared receive queues.
 */
final class Posting
{
    private Posting()
    {
    }

    /**
     * Validate a whole chain of receive WRs, then queue it (all or nothing).
     *
     * @param queue  the receive queue.
     * @param maxSge SGEs per WR the queue was created with.
     * @param first  first WR of the chain.
     * @param owner  e.g. "QP 0x11" for messages.
     * @param reader the queue's reader, through which the provider copies each WR.
     */
    static void postRecv(
        final RqOps queue, final int maxSge, final RecvWorkRequest first, final String owner, final WrReader reader)
    {
        ProgressGroup.requireNonNull(first, "wr");
        final int depth = queue.depth();
        final int free = depth - queue.available();
        int index = 0;
        for (RecvWorkRequest wr = first; null != wr; wr = wr.next(), index++)
        {
            if (index >= free)
            {
                throw new BadWorkRequestException(index, wr.wrId(), owner + " receive queue full: " + (depth - free) +
                    " WRs posted and not yet consumed, max_recv_wr " + depth + " (is the chain cyclic?)");
            }
            final int numSge = wr.numSge();
            if (numSge > maxSge)
            {
                throw new BadWorkRequestException(index, wr.wrId(), "num_sge " + numSge + " exceeds " + owner +
                    "'s max_recv_sge " + maxSge);
            }
            long total = 0;
            for (int i = 0; i < numSge; i++)
            {
                final int length = wr.sge(i).length();
                if (length < 0)
                {
                    throw new BadWorkRequestException(index, wr.wrId(), "SGE " + i + " has a negative length " +
                        length);
                }
                total += length;
            }
            if (total > DeviceAttributes.MAX_MSG_SIZE)
            {
                throw new BadWorkRequestException(index, wr.wrId(), "total SGE length " + total +
                    " exceeds the port's max message size " + DeviceAttributes.MAX_MSG_SIZE);
            }
        }
        for (RecvWorkRequest wr = first; null != wr; wr = wr.next())
        {
            queue.postRecv(reader.wrap(wr));
        }
    }
}

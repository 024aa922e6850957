package org.roce4j.cli.pingpong;

import org.roce4j.cm.oob.QpInfo;

/**
 * What one pingpong run did.
 *
 * @param iterations   exchanges asked for.
 * @param sent         send completions.
 * @param received     receive completions.
 * @param bytes        bytes counted as the examples do: size × iterations × 2.
 * @param elapsedNs    time of the message loop.
 * @param invalidPages pages that failed the -c check (server side).
 * @param local        this side's QP info.
 * @param remote       the peer's QP info.
 */
public record PingpongResult(
    int iterations, int sent, int received, long bytes, long elapsedNs, int invalidPages, QpInfo local, QpInfo remote)
{
}

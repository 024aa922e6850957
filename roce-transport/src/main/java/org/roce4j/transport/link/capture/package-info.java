/**
 * Watching any link: {@link org.roce4j.transport.link.capture.CaptureLink} records every frame to a pcapng file with
 * its direction ({@code --pcap}), {@link org.roce4j.transport.link.capture.TraceLink} prints a decoded line per frame
 * ({@code --trace}).
 */
package org.roce4j.transport.link.capture;

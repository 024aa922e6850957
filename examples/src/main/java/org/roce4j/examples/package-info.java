/**
 * Programs to copy from, each runnable on its own over the in-memory fabric and, between two hosts or network
 * namespaces, over the udp link. See examples/README.md.
 */
package org.roce4j.examples;

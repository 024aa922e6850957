/**
 * What links read from the host: an interface's MTU ({@link org.roce4j.transport.link.host.InterfaceMtu}), the
 * kernel's drop count for a socket or capture handle ({@link org.roce4j.transport.link.host.SocketDrops}), and ifreq
 * requests such as the NIC's multicast filter ({@link org.roce4j.transport.link.host.InterfaceRequests}).
 */
package org.roce4j.transport.link.host;

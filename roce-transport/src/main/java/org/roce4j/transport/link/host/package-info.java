/**
 * What links read from the host: an interface's MTU ({@link org.roce4j.transport.link.host.InterfaceMtu}) and the
 * kernel's drop count for a socket or capture handle ({@link org.roce4j.transport.link.host.SocketDrops}).
 */
package org.roce4j.transport.link.host;

package org.roce4j.transport.link.fault;

/**
 * A matcher a {@link FaultRule} adds to its BTH and address matchers ({@link FaultRule#matching(FrameMatcher)}), for
 * what they cannot say (an AETH syndrome, a header flag): it reads the frame through the {@link FrameView}, whose
 * {@link FrameView#buffer()} holds it. It runs on the thread driving the link, for each frame the rule's other
 * matchers let through.
 */
@FunctionalInterface
public interface FrameMatcher
{
    /**
     * @param frame the frame's fields and bytes.
     * @return true when the rule should act on it.
     */
    boolean matches(FrameView frame);
}

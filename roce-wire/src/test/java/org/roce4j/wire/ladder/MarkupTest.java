package org.roce4j.wire.ladder;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Escaping for hand-written XML and HTML.
 */
class MarkupTest
{
    @Test
    void escapesMarkupAndReplacesWhatXmlCannotHold()
    {
        assertEquals("&lt;a href=&quot;x&quot;&gt;&amp;&#39;", Markup.escape("<a href=\"x\">&'"));
        assertEquals("tab\tnl\n\uFFFD\uFFFD", Markup.escape("tab\tnl\n\u0000\u001f"));
        assertEquals("\uD83D\uDE00 \uFFFD \uFFFD \uFFFD", Markup.escape("\uD83D\uDE00 \uD83D \uDE00 \uFFFE"));
        assertEquals("", Markup.escape(""));
    }
}

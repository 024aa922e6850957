package org.roce4j.conform;

import java.util.Objects;

/**
 * The rule of the InfiniBand Architecture specification (Volume 1, with Annex A16/A17 for RoCEv2) a scenario checks.
 *
 * @param section    where the rule is, e.g. {@code "9.7.5.1.3"} or {@code "C9-105"}.
 * @param paraphrase the rule in one line, in our words (the specification's text is not reproduced).
 */
public record IbaRule(String section, String paraphrase)
{
    /**
     * @param section    where the rule is.
     * @param paraphrase the rule in one line.
     */
    public IbaRule
    {
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(paraphrase, "paraphrase");
        if (section.isBlank() || paraphrase.isBlank())
        {
            throw new IllegalArgumentException("an IBA rule needs a section and a paraphrase");
        }
    }

    /**
     * @return {@code IBA <section>: <paraphrase>}.
     */
    @Override
    public String toString()
    {
        return "IBA " + section + ": " + paraphrase;
    }
}

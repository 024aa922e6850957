package org.roce4j.conform;

import java.util.Objects;

/**
 * The rule of the InfiniBand Architecture specification (Volume 1, with Annex A16/A17 for RoCEv2) a scenario checks.
 * The specification itself is not at hand here, so a section number is either the one roce4j's engine cites for the
 * same behaviour or one checked against a public source that quotes the specification; {@code verifiedBy} says which.
 *
 * @param section    where the rule is, e.g. {@code "9.7.5.1.2"} or {@code "C9-105"}.
 * @param paraphrase the rule in one line, in our words (the specification's text is not reproduced).
 * @param verifiedBy the public source the section number was checked against, or null when it was not.
 */
public record IbaRule(String section, String paraphrase, String verifiedBy)
{
    /**
     * @param section    where the rule is.
     * @param paraphrase the rule in one line.
     * @param verifiedBy the source the section was checked against, or null.
     */
    public IbaRule
    {
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(paraphrase, "paraphrase");
        if (section.isBlank() || paraphrase.isBlank())
        {
            throw new IllegalArgumentException("an IBA rule needs a section and a paraphrase");
        }
        if (null != verifiedBy && verifiedBy.isBlank())
        {
            throw new IllegalArgumentException("verifiedBy names a source, or is null");
        }
    }

    /**
     * A rule whose section number was not checked against a source.
     *
     * @param section    where the rule is.
     * @param paraphrase the rule in one line.
     */
    public IbaRule(final String section, final String paraphrase)
    {
        this(section, paraphrase, null);
    }

    /**
     * @return true when the section number was checked against a public source ({@link #verifiedBy()}).
     */
    public boolean verified()
    {
        return null != verifiedBy;
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

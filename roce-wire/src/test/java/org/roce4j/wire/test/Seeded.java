package org.roce4j.wire.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class (or method) as randomized: its test methods may take a {@link SeededRandom} parameter, seeded
 * from {@code -Droce4j.seed} or at random, and a failure prints {@code seed=0x... (rerun with -Droce4j.seed=0x...)}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(SeedExtension.class)
public @interface Seeded
{
}

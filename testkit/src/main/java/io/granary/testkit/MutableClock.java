package io.granary.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock tests set and move by hand, so time-dependent code is tested without sleeping. */
public final class MutableClock extends Clock {
  private volatile Instant now;

  public MutableClock(Instant start) {
    this.now = start;
  }

  public MutableClock(long epochMillis) {
    this(Instant.ofEpochMilli(epochMillis));
  }

  public void set(Instant t) {
    now = t;
  }

  public void set(long epochMillis) {
    now = Instant.ofEpochMilli(epochMillis);
  }

  public void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public long millis() {
    return now.toEpochMilli();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}

package io.granary.operator.resources;

/** The two kinds of node pods, and the word their label and command use. */
public enum Role {
  PROXY("proxy"),
  TARGET("target");

  private final String word;

  Role(String word) {
    this.word = word;
  }

  public String word() {
    return word;
  }
}

package io.granary.target.storage;

/**
 * Told of an object committed on a mountpath that is not its HRW mountpath any more: a write that began before the
 * mountpaths changed and ended after, whose copy a resilver walk may already have passed. Disk executor; must not
 * block.
 */
@FunctionalInterface
public interface MisplacedListener {
  MisplacedListener NONE = loc -> { };

  void misplaced(ObjectLocation loc);
}

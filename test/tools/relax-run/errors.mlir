// relax-run: every bad input or flag is one line on stderr and a non-zero exit.

// RUN: not relax-run %s --inputs %s 2>&1 | filecheck %s --check-prefix=NOTNPZ
// NOTNPZ: relax-run: error: cannot read inputs '{{.*}}errors.mlir': not an .npz file (numpy.savez)
// NOTNPZ-NOT: Traceback

// RUN: not relax-run %s -p relax-normalize 2>&1 | filecheck %s --check-prefix=NOVM
// NOVM: relax-run: error: the pipeline 'relax-normalize' lowers no relax function to the VM (end it with relax-to-vm)

// RUN: rm -rf %t.dir && mkdir -p %t.dir && not relax-run %t.dir 2>&1 | filecheck %s --check-prefix=DIR
// DIR: relax-run: error: cannot open '{{.*}}.dir': Is a directory

// RUN: rm -f %t.blank && touch %t.blank && not relax-run %t.blank 2>&1 | filecheck %s --check-prefix=BLANK
// BLANK: relax-run: error: '{{.*}}.blank' holds no program

// RUN: not relax-run %s --bogus 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG: relax-run: error: unrecognized arguments: --bogus (see --help)
// FLAG-NOT: usage

relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  relax.return %x : !relax.tensor<[n], f32>
}

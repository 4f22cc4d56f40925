// RUN: relax-opt %s --split-input-file -p tir-to-llvm | filecheck %s
// tir-to-llvm: a prim_func becomes an llvm.func taking one pointer per buffer (noalias:
// buffers never overlap where one is written) and one i64 per signature variable,
// returning 0 or the number of the failed assert.

// A broadcast add over symbolic sizes: two loops (header block with the induction
// variable, body, latch), row-major offsets, and the scalar op as its llvm op. Its
// rows may run on several threads (tir-parallelize marks the outer loop): the loops
// run over a slice [lo, hi) of the rows in @add.slice; @add.task unpacks the
// arguments for it; @add, of the prim_func's signature, packs them and calls the
// runtime with the rows' extent, a grain of 1 and the work (n * m iterations).
tir.prim_func @add(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[j] : f32
      %c = arith.addf %a, %b : f32
      tir.store %C[i, j], %c : f32
    }
  }
}

// CHECK-LABEL: llvm.func @add.slice(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}, %C: !llvm.ptr {llvm.noalias}, %n: i64, %m: i64, %lo: i64, %hi: i64) -> i32 {
// CHECK-NEXT:    llvm.br ^bb1(%lo : i64)
// CHECK-NEXT:  ^bb1(%0: i64):
// CHECK-NEXT:    %1 = llvm.icmp "slt" %0, %hi : i64
// CHECK-NEXT:    llvm.cond_br %1, ^bb2, ^bb3
// CHECK:         %{{.*}} = llvm.mul %0, %m overflow<nsw> : i64
// CHECK-NEXT:    %[[OFF:.*]] = llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[PA:.*]] = llvm.getelementptr inbounds %A[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[VA:.*]] = llvm.load %[[PA]] : !llvm.ptr -> f32
// CHECK:         %[[VB:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %c = llvm.fadd %[[VA]], %[[VB]] : f32
// CHECK:         llvm.store %c, %{{.*}} : f32, !llvm.ptr
// CHECK:         llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^bb4
// CHECK:         llvm.return %{{.*}} : i32
// CHECK-LABEL: llvm.func @add.task(
// CHECK-SAME:    %args: !llvm.ptr {llvm.noalias}, %[[LO:lo[_0-9]*]]: i64, %[[HI:hi[_0-9]*]]: i64) -> i32 {
// CHECK-NEXT:    %[[S0:.*]] = llvm.getelementptr inbounds %args[0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[I0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P0:.*]] = llvm.inttoptr %[[I0]] : i64 to !llvm.ptr
// CHECK:         %[[S4:.*]] = llvm.getelementptr inbounds %args[4] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[M:.*]] = llvm.load %[[S4]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[R:.*]] = llvm.call @add.slice(%[[P0]], %{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[LO]], %[[HI]])
// CHECK-NEXT:    llvm.return %[[R]] : i32
// CHECK-LABEL: llvm.func @add(
// CHECK-SAME:    %[[A:A[_0-9]*]]: !llvm.ptr {llvm.noalias}, %{{B[_0-9]*}}: !llvm.ptr {llvm.noalias}, %{{C[_0-9]*}}: !llvm.ptr {llvm.noalias}, %[[N:n[_0-9]*]]: i64, %[[M:m[_0-9]*]]: i64) -> i32 {
// CHECK-NEXT:    %[[FIVE:.*]] = llvm.mlir.constant(5) : i64
// CHECK-NEXT:    %[[PACKED:.*]] = llvm.alloca %[[FIVE]] x i64
// CHECK-NEXT:    %[[AI:.*]] = llvm.ptrtoint %[[A]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[SA:.*]] = llvm.getelementptr inbounds %[[PACKED]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[AI]], %[[SA]] : i64, !llvm.ptr
// CHECK:         %[[SM:.*]] = llvm.getelementptr inbounds %[[PACKED]][4] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[M]], %[[SM]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[TASK:.*]] = llvm.mlir.addressof @add.task : !llvm.ptr
// CHECK-NEXT:    %[[GRAIN:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[WORK:.*]] = llvm.mul %[[M]], %[[N]] overflow<nsw> : i64
// CHECK-NEXT:    %[[R:.*]] = llvm.call @xrelax_parallel_for(%[[TASK]], %[[PACKED]], %[[N]], %[[GRAIN]], %[[WORK]])
// CHECK-NEXT:    llvm.return %[[R]] : i32
// CHECK:       llvm.func @xrelax_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64, i64) -> i32

// -----

// Scalar ops: NaN-propagating maximum, f32 exp inline (Cephes' expf, which LLVM
// vectorizes, where it cannot vectorize a libm call), cbrt from the C library,
// rsqrt as 1 / sqrt, comparisons and selects; i1 buffers are bytes.
tir.prim_func @scalars(%X: !tir.buffer<[4], f32>, %Y: !tir.buffer<[4], f32>, %M: !tir.buffer<[4], i1>) {
  tir.for i in [0, 4) {
    %x = tir.load %X[i] : f32
    %z = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %x, %z : f32
    %e = math.exp %r : f32
    %f = math.cbrt %e : f32
    %q = math.rsqrt %f : f32
    %p = arith.cmpf ogt, %x, %z : f32
    %s = arith.select %p, %q, %x : f32
    tir.store %Y[i], %s : f32
    tir.store %M[i], %p : i1
  }
}

// CHECK-LABEL: llvm.func @scalars(
// CHECK:         %r = llvm.call_intrinsic "llvm.maximum.f32"(%{{.*}}, %z) : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(8.900000e+01 : f32) : f32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.minnum.f32"(%r, %{{.*}}) : (f32, f32) -> f32
// CHECK:         %[[NAN:.*]] = llvm.fcmp "uno" %r, %r : f32
// CHECK-NEXT:    %[[E:.*]] = llvm.select %[[NAN]], %r, %{{.*}} : i1, f32
// CHECK-NEXT:    %f = llvm.call @cbrtf(%[[E]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.sqrt.f32"(%f) : (f32) -> f32
// CHECK-NEXT:    %[[Q:.*]] = llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %p = llvm.fcmp "ogt" %{{.*}}, %z : f32
// CHECK-NEXT:    %s = llvm.select %p, %[[Q]], %{{.*}} : i1, f32
// CHECK:         %[[PM:.*]] = llvm.getelementptr inbounds %M[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[BYTE:.*]] = llvm.zext %p : i1 to i8
// CHECK-NEXT:    llvm.store %[[BYTE]], %[[PM]] : i8, !llvm.ptr
// CHECK:       llvm.func @cbrtf(f32) -> f32

// -----

// A padded load branches on the bounds it does not prove (on an axis that may be
// empty); a local buffer is malloc'd
// in the entry block and freed on the way out; an assert exits with its number.
tir.prim_func @pad(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>) {
  tir.assert [n] <= [100], "n is at most 100"
  %T = tir.alloc_buffer : !tir.buffer<[n], f32>
  %p = arith.constant -1.000000e+00 : f32
  tir.for i in [0, n) {
    %x = tir.load %X[i - 1] pad %p : f32
    tir.store %T[i], %x : f32
  }
  tir.for j in [0, n) {
    %t = tir.load %T[j] : f32
    tir.store %Y[j], %t : f32
  }
}

// CHECK-LABEL: llvm.func @pad.slice(%X: !llvm.ptr {llvm.noalias}, %Y: !llvm.ptr {llvm.noalias}, %n: i64, %lo: i64, %hi: i64) -> i32 {
// CHECK:         %[[T:.*]] = llvm.call @malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         %[[OK:.*]] = llvm.icmp "sle" %n, %{{.*}} : i64
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.cond_br %[[OK]], ^{{.*}}, ^[[EXIT:bb[0-9]+]](%[[ONE]] : i32)
// CHECK:         %[[LO:.*]] = llvm.icmp "sle" %{{.*}}, %[[I:.*]] : i64
// CHECK:         %[[HI:.*]] = llvm.icmp "slt" %[[I]], %n : i64
// CHECK-NEXT:    %[[IN:.*]] = llvm.and %[[LO]], %[[HI]] : i1
// CHECK-NEXT:    llvm.cond_br %[[IN]], ^[[READ:bb[0-9]+]], ^[[JOIN:bb[0-9]+]](%p : f32)
// CHECK:       ^[[EXIT]](%[[STATUS:.*]]: i32):
// CHECK-NEXT:    llvm.call @free(%[[T]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return %[[STATUS]] : i32
// CHECK:       llvm.func @malloc(i64) -> !llvm.ptr
// CHECK:       llvm.func @free(!llvm.ptr)


// -----

// The element an innermost loop accumulates into is held in a register over the loop
// (a header block argument), loaded before and stored after it; the sum is marked
// reassociable so that LLVM vectorizes it.
tir.prim_func @rowsum(%A: !tir.buffer<[n, m], f32>, %S: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %z = arith.constant 0.000000e+00 : f32
    tir.store %S[i], %z : f32
    tir.for k in [0, m) {
      %acc = tir.load %S[i] : f32
      %a = tir.load %A[i, k] : f32
      %s = arith.addf %acc, %a : f32
      tir.store %S[i], %s : f32
    }
  }
}

// CHECK-LABEL: llvm.func @rowsum.slice(
// CHECK:         llvm.store %z, %{{.*}} : f32, !llvm.ptr
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr inbounds %S[%[[I:.*]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[START:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.br ^[[HEADER:bb[0-9]+]](%{{.*}}, %[[START]] : i64, f32)
// CHECK:       ^[[HEADER]](%[[K:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK:         %s = llvm.fadd %[[ACC]], %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc>} : f32
// CHECK:         llvm.br ^[[HEADER]](%{{.*}}, %s : i64, f32)
// CHECK:         llvm.store %[[ACC]], %[[SLOT]] : f32, !llvm.ptr

// -----

// On an axis of known, non-zero size a padded load needs no branch: the index is
// clamped into the axis, the element there read, and the pad selected where the
// index was outside (straight-line code, so the loop vectorizes).
tir.prim_func @clamp(%X: !tir.buffer<[8], f32>, %Y: !tir.buffer<[8], f32>) {
  %p = arith.constant 0.000000e+00 : f32
  tir.for i in [0, 8) {
    %x = tir.load %X[i - 1] pad %p : f32
    tir.store %Y[i], %x : f32
  }
}

// CHECK-LABEL: llvm.func @clamp(
// CHECK:         %[[IDX:.*]] = llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[LAST:.*]] = llvm.mlir.constant(7) : i64
// CHECK-NEXT:    %[[LO:.*]] = llvm.call_intrinsic "llvm.smax.i64"(%[[IDX]], %[[ZERO]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[IN:.*]] = llvm.call_intrinsic "llvm.smin.i64"(%[[LO]], %[[LAST]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[SAME:.*]] = llvm.icmp "eq" %[[IN]], %[[IDX]] : i64
// CHECK-NEXT:    %[[PX:.*]] = llvm.getelementptr inbounds %X[%[[IN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[PX]] : !llvm.ptr -> f32
// CHECK-NEXT:    %{{.*}} = llvm.select %[[SAME]], %[[V]], %p : i1, f32
// CHECK-NOT:     llvm.cond_br %[[SAME]]

// -----

// Perfectly nested loops whose variables index every buffer with its row-major strides
// run as one loop over the product of their extents (the outer variables read as 0),
// so a nest over small images is one long loop LLVM vectorizes. A bias indexed by the
// channel alone keeps the batch and channel loops and collapses the image's two. The
// batch is split between threads: the long loop runs over the slice's images,
// [lo * c * 196, hi * c * 196).
tir.prim_func @collapse(%A: !tir.buffer<[n, c, 14, 14], f32>, %B: !tir.buffer<[c], f32>, %C: !tir.buffer<[n, c, 14, 14], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, c) {
      tir.for h in [0, 14) {
        tir.for w in [0, 14) {
          %a = tir.load %A[i, j, h, w] : f32
          %e = math.exp %a : f32
          tir.store %C[i, j, h, w], %e : f32
        }
      }
    }
  }
  tir.for i2 in [0, n) {
    tir.for j2 in [0, c) {
      tir.for h2 in [0, 14) {
        tir.for w2 in [0, 14) {
          %x = tir.load %C[i2, j2, h2, w2] : f32
          %b = tir.load %B[j2] : f32
          %y = arith.addf %x, %b : f32
          tir.store %C[i2, j2, h2, w2], %y : f32
        }
      }
    }
  }
}

// CHECK-LABEL: llvm.func @collapse.slice(
// CHECK:         %[[IMAGES:.*]] = llvm.mul %{{.*}}, %c overflow<nsw> : i64
// CHECK-NEXT:    %[[START:.*]] = llvm.mul %[[IMAGES]], %lo overflow<nsw> : i64
// CHECK:         %[[END:.*]] = llvm.mul %{{.*}}, %hi overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[HEAD:bb[0-9]+]](%[[START]] : i64)
// CHECK-NEXT:  ^[[HEAD]](%[[K:.*]]: i64):
// CHECK-NEXT:    %{{.*}} = llvm.icmp "slt" %[[K]], %[[END]] : i64
// CHECK:         llvm.getelementptr inbounds %A[%{{.*}}]
// CHECK:         llvm.icmp "slt" %{{.*}}, %hi : i64
// CHECK:         llvm.icmp "slt" %{{.*}}, %c : i64
// CHECK:         %[[HW:.*]] = llvm.mlir.constant(196) : i64
// CHECK-NEXT:    llvm.br ^[[INNER:bb[0-9]+]](%{{.*}} : i64)
// CHECK:       ^[[INNER]](%[[P:.*]]: i64):
// CHECK-NEXT:    %{{.*}} = llvm.icmp "slt" %[[P]], %[[HW]] : i64
// CHECK:         llvm.getelementptr inbounds %B[%{{.*}}]
// CHECK-NOT:     llvm.icmp "slt" %{{.*}}, {{.*}}14
// CHECK:         llvm.return

// -----

// A padded load indexed by a reduction variable (a window: each element is read several
// times) reads a copy with the pad value around it, filled before the nest: the window
// loop then loads without a bounds test.
tir.prim_func @window(%X: !tir.buffer<[8], f32>, %Y: !tir.buffer<[8], f32>) {
  tir.for i in [0, 8) {
    %z = arith.constant 0.000000e+00 : f32
    tir.store %Y[i], %z : f32
    tir.for k in [0, 3) {
      %acc = tir.load %Y[i] : f32
      %p = arith.constant 0.000000e+00 : f32
      %x = tir.load %X[i + k - 1] pad %p : f32
      %s = arith.addf %acc, %x : f32
      tir.store %Y[i], %s : f32
    }
  }
}

// CHECK-LABEL: llvm.func @window(
// CHECK-NEXT:    %[[BYTES:.*]] = llvm.mlir.constant(40) : i64
// CHECK-NEXT:    %[[COPY:.*]] = llvm.call @malloc(%[[BYTES]]) : (i64) -> !llvm.ptr
// CHECK:         %[[TEN:.*]] = llvm.mlir.constant(10) : i64
// CHECK:         llvm.call_intrinsic "llvm.smax.i64"
// CHECK:         %[[SEL:.*]] = llvm.select
// CHECK-NEXT:    %[[AT:.*]] = llvm.getelementptr inbounds %[[COPY]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[SEL]], %[[AT]] : f32, !llvm.ptr
// CHECK:         %[[PX:.*]] = llvm.getelementptr inbounds %[[COPY]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %{{.*}} = llvm.load %[[PX]] : !llvm.ptr -> f32
// CHECK-NEXT:    %s = llvm.fadd
// CHECK:         llvm.call @free(%[[COPY]])

// -----

// Adjacent element-wise nests over the same loops, whose shared written buffer both
// access at the loop variables, run as one pass: one loop, the second body after the
// first (its load of %T is the first's store, which LLVM forwards). A nest reading %T
// elsewhere (reversed) stays a pass of its own.
tir.prim_func @chain(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>, %Z: !tir.buffer<[n], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[n], f32>
  tir.for i in [0, n) {
    %x = tir.load %X[i] : f32
    %e = math.exp %x : f32
    tir.store %T[i], %e : f32
  }
  tir.for i in [0, n) {
    %t = tir.load %T[i] : f32
    %x2 = tir.load %X[i] : f32
    %m = arith.mulf %t, %x2 : f32
    tir.store %Y[i], %m : f32
  }
  tir.for i in [0, n) {
    %r = tir.load %T[n - 1 - i] : f32
    tir.store %Z[i], %r : f32
  }
}

// CHECK-LABEL: llvm.func @chain(
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK-NOT:     llvm.cond_br
// CHECK:         %m = llvm.fmul
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %Y
// CHECK:         llvm.cond_br
// CHECK:         llvm.getelementptr inbounds %Z

// -----

// A signed comparison of i1 values, which would read True as -1, is the unsigned one,
// as the numpy kernels read it (legalization emits the unsigned predicates for bools).
tir.prim_func @bools(%A: !tir.buffer<[4], i1>, %B: !tir.buffer<[4], i1>, %C: !tir.buffer<[4], i1>) {
  tir.for i in [0, 4) {
    %a = tir.load %A[i] : i1
    %b = tir.load %B[i] : i1
    %c = arith.cmpi slt, %a, %b : i1
    tir.store %C[i], %c : i1
  }
}

// CHECK-LABEL: llvm.func @bools(
// CHECK:         %c = llvm.icmp "ult" %{{.*}}, %{{.*}} : i1

// -----

// A data-dependent index (a tir.let variable, sign-extended to i64) is checked where it
// is used: outside its buffer, the function returns a failure code as a failed assert
// does, and the caller's numpy kernel reports the index.
tir.prim_func @take(%X: !tir.buffer<[8], f32>, %I: !tir.buffer<[n], i32>, %Y: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %k = tir.load %I[i] : i32
    tir.let t = %k : i32
    %x = tir.load %X[t] : f32
    tir.store %Y[i], %x : f32
  }
}

// CHECK-LABEL: llvm.func @take.slice(
// CHECK:         %[[K:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[T:.*]] = llvm.sext %[[K]] : i32 to i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %[[LOW:.*]] = llvm.icmp "sle" %[[ZERO]], %[[T]] : i64
// CHECK-NEXT:    %[[HIGH:.*]] = llvm.icmp "slt" %[[T]], %[[SIZE]] : i64
// CHECK-NEXT:    %[[INSIDE:.*]] = llvm.and %[[LOW]], %[[HIGH]] : i1
// CHECK-NEXT:    %[[CODE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.cond_br %[[INSIDE]], ^[[READ:.*]], ^[[EXIT:.*]](%[[CODE]] : i32)
// CHECK:       ^[[READ]]:
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %X[%[[T]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32

// -----

// A short loop over whole vectors inside a loop that reads a broadcast operand (a bias
// per channel around each 4x4 image) keeps a latch block of its own, named
// xrelax_rolled: the JIT marks its branch llvm.loop.unroll.disable, so that LLVM
// vectorizes the image's 16 elements instead of unrolling them and vectorizing across
// channels with gathers.
tir.prim_func @bias(%X: !tir.buffer<[64, 4, 4], f32>, %B: !tir.buffer<[64], f32>, %Y: !tir.buffer<[64, 4, 4], f32>) {
  tir.for c in [0, 64) {
    tir.for h in [0, 4) {
      tir.for w in [0, 4) {
        %x = tir.load %X[c, h, w] : f32
        %b = tir.load %B[c] : f32
        %y = arith.addf %x, %b : f32
        tir.store %Y[c, h, w], %y : f32
      }
    }
  }
}

// CHECK-LABEL: llvm.func @bias(
// CHECK:         %[[TRIPS:.*]] = llvm.mlir.constant(16) : i64
// CHECK-NEXT:    llvm.br ^[[HEADER:.*]](%{{.*}} : i64)
// CHECK:         llvm.store %y, %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^xrelax_rolled
// CHECK:       ^xrelax_rolled:
// CHECK-NEXT:    %{{.*}} = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    llvm.br ^[[HEADER]](%[[NEXT]] : i64)

// -----

// A float32 matrix product runs in register tiles (the vector width is the host's):
// each step loads vectors of a row of %B, broadcasts elements of a column of %A and
// does one vector fused multiply-add per accumulator; the columns past a multiple of
// the width (37 = 2 x 16 + 5 with AVX-512) are loaded and stored under a mask. The
// tile is stored once, after the reduction.
tir.prim_func @tiled(%A: !tir.buffer<[13, 20], f32>, %B: !tir.buffer<[20, 37], f32>, %C: !tir.buffer<[13, 37], f32>) {
  tir.for i in [0, 13) {
    tir.for j in [0, 37) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 20) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, k] : f32
        %b = tir.load %B[k, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}

// CHECK-LABEL: llvm.func @tiled
// CHECK:         %{{.*}} = llvm.call_intrinsic "llvm.masked.load.v{{[0-9]+}}f32.p0"
// CHECK:         %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[S:.*]] = llvm.shufflevector
// CHECK-NEXT:    %{{.*}} = llvm.intr.fma(%[[S]], %{{.*}}, %{{.*}}) : (vector<[[W:[0-9]+]]xf32>, vector<[[W]]xf32>, vector<[[W]]xf32>) -> vector<[[W]]xf32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<[[W]]xf32>, !llvm.ptr
// CHECK:         llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : vector<[[W]]xf32>, vector<[[W]]xi1> into !llvm.ptr

// -----

// The element-wise nest after a tiled contraction (a bias and a ReLU) is applied to
// the accumulators before the tile is stored: the bias broadcast per row, the maximum
// on vectors, no pass of its own over %C.
tir.prim_func @epilogue(%A: !tir.buffer<[16, 20], f32>, %B: !tir.buffer<[20, 32], f32>, %bias: !tir.buffer<[16], f32>, %C: !tir.buffer<[16, 32], f32>) {
  tir.for i in [0, 16) {
    tir.for j in [0, 32) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 20) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, k] : f32
        %b = tir.load %B[k, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
  tir.for i in [0, 16) {
    tir.for j in [0, 32) {
      %c = tir.load %C[i, j] : f32
      %b = tir.load %bias[i] : f32
      %s = arith.addf %c, %b : f32
      %z = arith.constant 0.000000e+00 : f32
      %r = arith.maximumf %s, %z : f32
      tir.store %C[i, j], %r : f32
    }
  }
}

// CHECK-LABEL: llvm.func @epilogue
// CHECK:         llvm.intr.fma
// CHECK:         %[[BIAS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[SUM:.*]] = llvm.fadd %{{.*}}, %{{.*}} : vector<[[W:[0-9]+]]xf32>
// CHECK-NEXT:    %[[MAX:.*]] = llvm.call_intrinsic "llvm.maximum.v[[W]]f32"(%[[SUM]], %{{.*}})
// CHECK:         llvm.store %[[MAX]], %{{.*}} {alignment = 4 : i64} : vector<[[W]]xf32>, !llvm.ptr
// CHECK-NOT:     llvm.fadd %{{.*}} : f32
// CHECK:         llvm.return

// -----

// A sigmoid after the contraction: its exp on the accumulators' vectors, Cephes' expf
// (the clamp by NaN-propagating minimum and maximum, the exponent's bits as integer
// vectors), no pass of its own over %C.
tir.prim_func @exp_epilogue(%A: !tir.buffer<[16, 20], f32>, %B: !tir.buffer<[20, 32], f32>, %C: !tir.buffer<[16, 32], f32>) {
  tir.for i in [0, 16) {
    tir.for j in [0, 32) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 20) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, k] : f32
        %b = tir.load %B[k, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
  tir.for i in [0, 16) {
    tir.for j in [0, 32) {
      %one = arith.constant 1.000000e+00 : f32
      %c = tir.load %C[i, j] : f32
      %n = arith.negf %c : f32
      %e = math.exp %n : f32
      %d = arith.addf %one, %e : f32
      %r = arith.divf %one, %d : f32
      tir.store %C[i, j], %r : f32
    }
  }
}

// CHECK-LABEL: llvm.func @exp_epilogue
// CHECK:         llvm.intr.fma
// CHECK:         %[[NEG:.*]] = llvm.fneg %{{.*}} : vector<[[W:[0-9]+]]xf32>
// CHECK:         %[[HIGH:.*]] = llvm.call_intrinsic "llvm.minimum.v[[W]]f32"(%[[NEG]], %{{.*}})
// CHECK:         llvm.call_intrinsic "llvm.maximum.v[[W]]f32"(%[[HIGH]], %{{.*}})
// CHECK:         llvm.bitcast %{{.*}} : vector<[[W]]xf32> to vector<[[W]]xi32>
// CHECK:         llvm.fdiv %{{.*}}, %{{.*}} : vector<[[W]]xf32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<[[W]]xf32>, !llvm.ptr
// CHECK-NOT:     llvm.fdiv %{{.*}} : f32
// CHECK:         llvm.return

// -----

// A batch of symbolic size split with the channels inside it: the range is the pairs
// (n * 16), the work the iterations of the nest once (n * 16 * 512, the inner loop of
// the pair not counted again), and the channels' part of a slice [lo, hi) within the
// image i is [max(lo - 16 i, 0), min(hi - 16 i, 16)).
tir.prim_func @pairs(%X: !tir.buffer<[n, 16, 512], f32>, %Y: !tir.buffer<[n, 16, 512], f32>) {
  tir.for i in [0, n) {
    tir.for c in [0, 16) {
      tir.for w in [0, 512) {
        %x = tir.load %X[i, c, w] : f32
        %b = tir.load %X[i, 0, w] : f32
        %y = arith.addf %x, %b : f32
        tir.store %Y[i, c, w], %y : f32
      }
    }
  }
}

// CHECK-LABEL: llvm.func @pairs.slice(
// CHECK:         %[[FIRST:.*]] = llvm.sdiv %lo, %{{.*}} : i64
// CHECK:         ^bb1(%[[I:.*]]: i64):
// CHECK:         %[[BASE:.*]] = llvm.mul %{{.*}}, %[[I]] overflow<nsw> : i64
// CHECK-NEXT:    %[[FROM:.*]] = llvm.add %lo, %[[BASE]] overflow<nsw> : i64
// CHECK-NEXT:    %{{.*}} = llvm.icmp "sgt" %{{.*}}, %[[FROM]] : i64
// CHECK-LABEL: llvm.func @pairs(
// CHECK:         %[[SIXTEEN:.*]] = llvm.mlir.constant(16) : i64
// CHECK-NEXT:    %[[PAIRS:.*]] = llvm.mul %[[SIXTEEN]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[GRAIN:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[NEST:.*]] = llvm.mlir.constant(8192) : i64
// CHECK-NEXT:    %[[WORK:.*]] = llvm.mul %[[NEST]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %{{.*}} = llvm.call @xrelax_parallel_for(%{{.*}}, %{{.*}}, %[[PAIRS]], %[[GRAIN]], %[[WORK]])

// -----

// A depthwise convolution channels-last with stride 2: both operands run along the
// channels (the vector axis); the weights' vector is loaded once per step and shared by
// the tile's rows (pixels), the window's vectors are loaded per row. Near a border the
// step reads, for a pixel outside the image, a vector of the pad value (one unsigned
// comparison per clamped index, a select of the pointer); the bias per channel is a
// vector of the epilogue.
tir.prim_func @depthwise(%X: !tir.buffer<[2, 12, 12, 32], f32>, %W: !tir.buffer<[3, 3, 32], f32>, %B: !tir.buffer<[32], f32>, %Y: !tir.buffer<[2, 6, 6, 32], f32>) {
  tir.for n in [0, 2) {
    tir.for h in [0, 6) {
      tir.for w in [0, 6) {
        tir.for c in [0, 32) {
          %z = arith.constant 0.000000e+00 : f32
          tir.store %Y[n, h, w, c], %z : f32
          tir.for r0 in [0, 3) {
            tir.for r1 in [0, 3) {
              %y = tir.load %Y[n, h, w, c] : f32
              %p = arith.constant 0.000000e+00 : f32
              %x = tir.load %X[n, h * 2 + r0 - 1, w * 2 + r1 - 1, c] pad %p : f32
              %k = tir.load %W[r0, r1, c] : f32
              %m = arith.mulf %x, %k : f32
              %s = arith.addf %y, %m : f32
              tir.store %Y[n, h, w, c], %s : f32
            }
          }
        }
      }
    }
  }
  tir.for n in [0, 2) {
    tir.for h in [0, 6) {
      tir.for w in [0, 6) {
        tir.for c in [0, 32) {
          %y = tir.load %Y[n, h, w, c] : f32
          %b = tir.load %B[c] : f32
          %s = arith.addf %y, %b : f32
          tir.store %Y[n, h, w, c], %s : f32
        }
      }
    }
  }
}

// CHECK-LABEL: llvm.func @depthwise(
// CHECK:         %[[PAD:.*]] = llvm.alloca %{{.*}} x vector<[[W:[0-9]+]]xf32>
// CHECK:         llvm.store %{{.*}}, %[[PAD]] {alignment = 4 : i64} : vector<[[W]]xf32>, !llvm.ptr
// CHECK:         %[[BIAS:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<[[W]]xf32>
// CHECK-NEXT:    %{{.*}} = llvm.fadd %{{.*}}, %[[BIAS]] : vector<[[W]]xf32>
// CHECK:         %[[KP:.*]] = llvm.getelementptr inbounds %W[
// CHECK-NEXT:    %[[K:.*]] = llvm.load %[[KP]] {alignment = 4 : i64} : !llvm.ptr -> vector<[[W]]xf32>
// CHECK:         llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
// CHECK:         llvm.cond_br
// CHECK:         %[[XP:.*]] = llvm.getelementptr inbounds %X[
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[XP]] {alignment = 4 : i64} : !llvm.ptr -> vector<[[W]]xf32>
// CHECK-NEXT:    %{{.*}} = llvm.intr.fma(%[[X]], %[[K]], %{{.*}}) : (vector<[[W]]xf32>
// CHECK:         llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
// CHECK:         %[[P:.*]] = llvm.select %{{.*}}, %{{.*}}, %[[PAD]] : i1, !llvm.ptr
// CHECK-NEXT:    %[[XC:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> vector<[[W]]xf32>
// CHECK-NEXT:    %{{.*}} = llvm.intr.fma(%[[XC]], %[[K]], %{{.*}}) : (vector<[[W]]xf32>

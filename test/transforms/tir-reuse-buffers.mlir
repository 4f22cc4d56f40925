// RUN: relax-opt %s --split-input-file -p tir-reuse-buffers | filecheck %s
// A local buffer written by one nest and read by one later nest only at the index that
// nest stores to its own buffer (of the same type) goes away: the producer writes the
// consumer's buffer, which the consumer then updates in place.

// A matmul with its bias and relu epilogues: both intermediates fold into the output,
// the reduction accumulating in it.
tir.prim_func @matmul_add_relu(%x: !tir.buffer<[n, 4], f32>, %w: !tir.buffer<[4, 3], f32>, %b: !tir.buffer<[3], f32>, %out: !tir.buffer<[n, 3], f32>) {
  %mm = tir.alloc_buffer : !tir.buffer<[n, 3], f32>
  tir.for i in [0, n) {
    tir.for j in [0, 3) {
      %z = arith.constant 0.000000e+00 : f32
      tir.store %mm[i, j], %z : f32
      tir.for k in [0, 4) {
        %acc = tir.load %mm[i, j] : f32
        %a = tir.load %x[i, k] : f32
        %c = tir.load %w[k, j] : f32
        %p = arith.mulf %a, %c : f32
        %s = arith.addf %acc, %p : f32
        tir.store %mm[i, j], %s : f32
      }
    }
  }
  %biased = tir.alloc_buffer : !tir.buffer<[n, 3], f32>
  tir.for i2 in [0, n) {
    tir.for j2 in [0, 3) {
      %v = tir.load %mm[i2, j2] : f32
      %bv = tir.load %b[j2] : f32
      %s2 = arith.addf %v, %bv : f32
      tir.store %biased[i2, j2], %s2 : f32
    }
  }
  tir.for i3 in [0, n) {
    tir.for j3 in [0, 3) {
      %v3 = tir.load %biased[i3, j3] : f32
      %zero = arith.constant 0.000000e+00 : f32
      %r = arith.maximumf %v3, %zero : f32
      tir.store %out[i3, j3], %r : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @matmul_add_relu(
// CHECK-NOT:     tir.alloc_buffer
// CHECK:         tir.store %out[i, j], %{{.*}} : f32
// CHECK:         tir.load %out[i, j] : f32
// CHECK:         tir.store %out[i, j], %{{.*}} : f32
// CHECK:         tir.load %out[i2, j2] : f32
// CHECK:         tir.store %out[i2, j2], %{{.*}} : f32
// CHECK:         tir.load %out[i3, j3] : f32
// CHECK:         tir.store %out[i3, j3], %{{.*}} : f32

// -----

// Kept: the consumer reads the buffer at another index (a shift), reads the target
// itself, or the target is written before the consumer by another nest.
tir.prim_func @kept(%x: !tir.buffer<[8], f32>, %y: !tir.buffer<[7], f32>, %z: !tir.buffer<[8], f32>) {
  %t = tir.alloc_buffer : !tir.buffer<[8], f32>
  tir.for i in [0, 8) {
    %a = tir.load %x[i] : f32
    tir.store %t[i], %a : f32
  }
  tir.for j in [0, 7) {
    %b = tir.load %t[j + 1] : f32
    tir.store %y[j], %b : f32
  }
  %u = tir.alloc_buffer : !tir.buffer<[8], f32>
  tir.for i2 in [0, 8) {
    %c = tir.load %x[i2] : f32
    tir.store %u[i2], %c : f32
  }
  tir.for i3 in [0, 8) {
    %zero = arith.constant 0.000000e+00 : f32
    tir.store %z[i3], %zero : f32
  }
  tir.for i4 in [0, 8) {
    %d = tir.load %u[i4] : f32
    %e = tir.load %z[i4] : f32
    %f = arith.addf %d, %e : f32
    tir.store %z[i4], %f : f32
  }
}

// CHECK-LABEL: tir.prim_func @kept(
// CHECK:         %t = tir.alloc_buffer : !tir.buffer<[8], f32>
// CHECK:         tir.load %t[j + 1] : f32
// CHECK:         %u = tir.alloc_buffer : !tir.buffer<[8], f32>
// CHECK:         tir.store %u[i2], %{{.*}} : f32
// CHECK:         tir.load %u[i4] : f32

// -----

// A local target allocated after the producer is allocated before it.
tir.prim_func @hoisted(%x: !tir.buffer<[4], f32>, %y: !tir.buffer<[4], f32>) {
  %t = tir.alloc_buffer : !tir.buffer<[4], f32>
  tir.for i in [0, 4) {
    %a = tir.load %x[i] : f32
    %e = math.exp %a : f32
    tir.store %t[i], %e : f32
  }
  %u = tir.alloc_buffer : !tir.buffer<[4], f32>
  tir.for j in [0, 4) {
    %b = tir.load %t[j] : f32
    %n = arith.negf %b : f32
    tir.store %u[j], %n : f32
  }
  tir.for k in [0, 4) {
    %c = tir.load %u[k] : f32
    %d = tir.load %u[3 - k] : f32
    %s = arith.addf %c, %d : f32
    tir.store %y[k], %s : f32
  }
}

// CHECK-LABEL: tir.prim_func @hoisted(
// CHECK-NEXT:    %u = tir.alloc_buffer : !tir.buffer<[4], f32>
// CHECK-NEXT:    tir.for i in [0, 4) {
// CHECK:           tir.store %u[i], %{{.*}} : f32
// CHECK:         tir.for j in [0, 4) {
// CHECK-NEXT:      %{{.*}} = tir.load %u[j] : f32
// CHECK:           tir.store %u[j], %{{.*}} : f32
// CHECK:         tir.load %u[-k + 3] : f32

// -----

// Kept: the consumer's store sits in a loop its index ignores (an accumulation): in
// place, each iteration would read back what the previous one wrote.
tir.prim_func @accumulated(%x: !tir.buffer<[4], f32>, %y: !tir.buffer<[4], f32>) {
  %t = tir.alloc_buffer : !tir.buffer<[4], f32>
  tir.for i in [0, 4) {
    %a = tir.load %x[i] : f32
    tir.store %t[i], %a : f32
  }
  tir.for j in [0, 4) {
    tir.for k in [0, 3) {
      %b = tir.load %t[j] : f32
      %c = arith.addf %b, %b : f32
      tir.store %y[j], %c : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @accumulated(
// CHECK:         %t = tir.alloc_buffer : !tir.buffer<[4], f32>
// CHECK:         tir.load %t[j] : f32

// -----

// A softmax: the exponentials are read by the sum, then divided pointwise into the
// output; the last reader decides, so they are computed in the output and divided in
// place (the sum reads them there). The sum's buffer, read by a broadcast, stays.
tir.prim_func @softmax(%x: !tir.buffer<[n, 4], f32>, %out: !tir.buffer<[n, 4], f32>) {
  %e = tir.alloc_buffer : !tir.buffer<[n, 4], f32>
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %a = tir.load %x[i, j] : f32
      %b = math.exp %a : f32
      tir.store %e[i, j], %b : f32
    }
  }
  %s = tir.alloc_buffer : !tir.buffer<[n], f32>
  tir.for i2 in [0, n) {
    %z = arith.constant 0.000000e+00 : f32
    tir.store %s[i2], %z : f32
    tir.for k in [0, 4) {
      %acc = tir.load %s[i2] : f32
      %v = tir.load %e[i2, k] : f32
      %t = arith.addf %acc, %v : f32
      tir.store %s[i2], %t : f32
    }
  }
  tir.for i3 in [0, n) {
    tir.for j3 in [0, 4) {
      %v3 = tir.load %e[i3, j3] : f32
      %s3 = tir.load %s[i3] : f32
      %q = arith.divf %v3, %s3 : f32
      tir.store %out[i3, j3], %q : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @softmax(
// CHECK-NEXT:    tir.for i in [0, n) {
// CHECK:           tir.store %out[i, j], %{{.*}} : f32
// CHECK:         %s = tir.alloc_buffer : !tir.buffer<[n], f32>
// CHECK:           tir.load %out[i2, k] : f32
// CHECK:         tir.load %out[i3, j3] : f32
// CHECK:         tir.store %out[i3, j3], %{{.*}} : f32

// -----

// Kept: the last reader reads the buffer at another index (the earlier reader is
// pointwise, but the last one decides).
tir.prim_func @last_reader_shifts(%x: !tir.buffer<[8], f32>, %y: !tir.buffer<[8], f32>, %z: !tir.buffer<[7], f32>) {
  %t = tir.alloc_buffer : !tir.buffer<[8], f32>
  tir.for i in [0, 8) {
    %a = tir.load %x[i] : f32
    tir.store %t[i], %a : f32
  }
  tir.for j in [0, 8) {
    %b = tir.load %t[j] : f32
    tir.store %y[j], %b : f32
  }
  tir.for k in [0, 7) {
    %c = tir.load %t[k + 1] : f32
    tir.store %z[k], %c : f32
  }
}

// CHECK-LABEL: tir.prim_func @last_reader_shifts(
// CHECK-NEXT:    %t = tir.alloc_buffer : !tir.buffer<[8], f32>
// CHECK:         tir.load %t[j] : f32
// CHECK:         tir.load %t[k + 1] : f32

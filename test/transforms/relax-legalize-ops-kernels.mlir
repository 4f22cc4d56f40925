// RUN: relax-opt %s -p relax-legalize-ops | filecheck %s --check-prefix=NUMPY
// RUN: relax-opt %s -p 'relax-legalize-ops{kernels=native}' | filecheck %s --check-prefix=NATIVE
// RUN: relax-opt %s -p 'relax-to-vm{kernels=native}' | filecheck %s --check-prefix=NATIVE
// RUN: not relax-opt %s -p 'relax-legalize-ops{kernels=cuda}' 2>&1 | filecheck %s --check-prefix=BAD
// The kernels are built for a kernel backend (kernels=numpy by default): a depthwise
// 5x5 convolution is a banded matrix product per image row for the numpy kernels (a
// batched matmul beats 25 whole-array multiply-adds there), a direct sum over the
// window for native loops (25 multiply-adds per output where the band takes 80).

// NUMPY:       tir.prim_func @conv2d(
// NUMPY:         %band = tir.alloc_buffer : !tir.buffer<[8, 5, 16, 12], f32>
// NUMPY:         tir.for kh in [0, 5) {
// NUMPY-NEXT:      tir.for j in [0, 16) {

// NATIVE:      tir.prim_func @conv2d(
// NATIVE-NOT:    %band
// NATIVE:        tir.for r0 in [0, 5) {
// NATIVE-NEXT:     tir.for r1 in [0, 5) {
// NATIVE:            tir.load %{{.*}}[{{.*}}, i2 + r0 - 2, i3 + r1 - 2] pad

// BAD: relax-opt: error: bad options for pass 'relax-legalize-ops': kernels must be one of numpy, native
relax.func @main(%x: !relax.tensor<[n, 8, 12, 12], f32>, %w: !relax.tensor<[8, 1, 5, 5], f32>) -> !relax.tensor<[n, 8, 12, 12], f32> {
  %c = relax.conv2d %x, %w {padding = array<i64: 2, 2>, groups = 8 : i64} : (!relax.tensor<[n, 8, 12, 12], f32>, !relax.tensor<[8, 1, 5, 5], f32>)
  relax.return %c : !relax.tensor<[n, 8, 12, 12], f32>
}

// RUN: relax-opt %s --split-input-file -p relax-legalize-ops | filecheck %s

// A broadcasting elementwise operator becomes a kernel (inputs, then the output, in
// destination-passing style) and a call_tir of it.
// CHECK-LABEL: tir.prim_func @add(%x0: !tir.buffer<[n, 4], f32>, %x1: !tir.buffer<[4], f32>, %out: !tir.buffer<[n, 4], f32>) {
// CHECK-NEXT:    tir.for i0 in [0, n) {
// CHECK-NEXT:      tir.for i1 in [0, 4) {
// CHECK-NEXT:        %0 = tir.load %x0[i0, i1] : f32
// CHECK-NEXT:        %1 = tir.load %x1[i1] : f32
// CHECK-NEXT:        %2 = arith.addf %0, %1 : f32
// CHECK-NEXT:        tir.store %out[i0, i1], %2 : f32
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-LABEL: relax.func @elementwise
// CHECK-NEXT:    %y = relax.call_tir @add(%x, %b) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4], f32>) -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.return %y : !relax.tensor<[n, 4], f32>
relax.func @elementwise(%x: !relax.tensor<[n, 4], f32>, %b: !relax.tensor<[4], f32>) -> !relax.tensor<[n, 4], f32> {
  %y = relax.add %x, %b : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4], f32>)
  relax.return %y : !relax.tensor<[n, 4], f32>
}

// -----

// Structurally identical kernels are shared, across functions too; a different shape
// gives a kernel of its own.
// CHECK:       tir.prim_func @exp(%x0: !tir.buffer<[n], f32>, %out: !tir.buffer<[n], f32>)
// CHECK:       tir.prim_func @exp1(%x0: !tir.buffer<[n, 2], f32>, %out: !tir.buffer<[n, 2], f32>)
// CHECK-NOT:   tir.prim_func
// CHECK-LABEL: relax.func @shared
// CHECK-NEXT:    %a = relax.call_tir @exp(%x)
// CHECK-NEXT:    %b = relax.call_tir @exp(%a)
// CHECK-NEXT:    %c = relax.call_tir @exp1(%y)
// CHECK-LABEL: relax.func @shared_across_functions
// CHECK-NEXT:    %a = relax.call_tir @exp(%x)
relax.func @shared(%x: !relax.tensor<[n], f32>, %y: !relax.tensor<[n, 2], f32>) -> !relax.tensor<[n, 2], f32> {
  %a = relax.exp %x : (!relax.tensor<[n], f32>)
  %b = relax.exp %a : (!relax.tensor<[n], f32>)
  %c = relax.exp %y : (!relax.tensor<[n, 2], f32>)
  relax.return %c : !relax.tensor<[n, 2], f32>
}
relax.func @shared_across_functions(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %a = relax.exp %x : (!relax.tensor<[n], f32>)
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

// reshape reads the input at the output's row-major flat index, flattened only within
// the axes it regroups (here [4, 8] -> [32]; n is kept); the shape operand is static in
// the kernel's types, so only the tensor is passed. matmul is a reduction.
// CHECK-LABEL: tir.prim_func @reshape(%x0: !tir.buffer<[n, 4, 8], f32>, %out: !tir.buffer<[n, 32], f32>) {
// CHECK-NEXT:    tir.for i0 in [0, n) {
// CHECK-NEXT:      tir.for i1 in [0, 32) {
// CHECK-NEXT:        %0 = tir.load %x0[i0, floordiv(i1, 8), floormod(i1, 8)] : f32
// CHECK-NEXT:        tir.store %out[i0, i1], %0 : f32
// CHECK-LABEL: tir.prim_func @matmul(%x0: !tir.buffer<[n, 32], f32>, %x1: !tir.buffer<[32, m], f32>, %out: !tir.buffer<[n, m], f32>) {
// CHECK-NEXT:    tir.for i0 in [0, n) {
// CHECK-NEXT:      tir.for i1 in [0, m) {
// CHECK-NEXT:        %0 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        tir.store %out[i0, i1], %0 : f32
// CHECK-NEXT:        tir.for k in [0, 32) {
// CHECK-NEXT:          %1 = tir.load %out[i0, i1] : f32
// CHECK-NEXT:          %2 = tir.load %x0[i0, k] : f32
// CHECK-NEXT:          %3 = tir.load %x1[k, i1] : f32
// CHECK-NEXT:          %4 = arith.mulf %2, %3 : f32
// CHECK-NEXT:          %5 = arith.addf %1, %4 : f32
// CHECK-NEXT:          tir.store %out[i0, i1], %5 : f32
// CHECK-LABEL: relax.func @reshape_matmul
// CHECK:         %r = relax.call_tir @reshape(%x) : (!relax.tensor<[n, 4, 8], f32>) -> !relax.tensor<[n, 32], f32>
// CHECK-NEXT:    %y = relax.call_tir @matmul(%r, %w) : (!relax.tensor<[n, 32], f32>, !relax.tensor<[32, m], f32>) -> !relax.tensor<[n, m], f32>
relax.func @reshape_matmul(%x: !relax.tensor<[n, 4, 8], f32>, %w: !relax.tensor<[32, m], f32>) -> !relax.tensor<[n, m], f32> {
  %s = relax.shape [n, 32] : !relax.shape<[n, 32]>
  %r = relax.reshape %x, %s : (!relax.tensor<[n, 4, 8], f32>, !relax.shape<[n, 32]>)
  %y = relax.matmul %r, %w : (!relax.tensor<[n, 32], f32>, !relax.tensor<[32, m], f32>)
  relax.return %y : !relax.tensor<[n, m], f32>
}

// -----

// Splitting heads ([s, b, 256] -> [s, b * 4, 64]) keeps s as it is and regroups
// [b, 256] with [b * 4, 64]: every divisor is static, none is the symbolic b.
// CHECK-LABEL: tir.prim_func @reshape(%x0: !tir.buffer<[s, b, 256], f32>, %out: !tir.buffer<[s, b * 4, 64], f32>) {
// CHECK:         %0 = tir.load %x0[i0, floordiv(i1 * 64 + i2, 256), floormod(i1 * 64 + i2, 256)] : f32
// Merging heads back ([b * 4, s, 64] -> [b, 4, s, 64]) is a plain affine read.
// CHECK-LABEL: tir.prim_func @reshape1(%x0: !tir.buffer<[b * 4, s, 64], f32>, %out: !tir.buffer<[b, 4, s, 64], f32>) {
// CHECK:         %0 = tir.load %x0[i0 * 4 + i1, i2, i3] : f32
relax.func @heads(%x: !relax.tensor<[s, b, 256], f32>) -> !relax.tensor<[b, 4, s, 64], f32> {
  %split = relax.shape [s, b * 4, 64] : !relax.shape<[s, b * 4, 64]>
  %h = relax.reshape %x, %split : (!relax.tensor<[s, b, 256], f32>, !relax.shape<[s, b * 4, 64]>)
  %t = relax.permute_dims %h {axes = array<i64: 1, 0, 2>} : (!relax.tensor<[s, b * 4, 64], f32>)
  %merge = relax.shape [b, 4, s, 64] : !relax.shape<[b, 4, s, 64]>
  %r = relax.reshape %t, %merge : (!relax.tensor<[b * 4, s, 64], f32>, !relax.shape<[b, 4, s, 64]>)
  relax.return %r : !relax.tensor<[b, 4, s, 64], f32>
}

// -----

// A variable that no buffer binds as a whole dimension is passed as a sym argument
// (call_tir_dyn).
// CHECK-LABEL: tir.prim_func @negative(%x0: !tir.buffer<[n * 2], f32>, %out: !tir.buffer<[n * 2], f32>) sym [n] {
// CHECK-LABEL: relax.func @dyn
// CHECK-NEXT:    %y = relax.call_tir @negative(%x) sym [n] : (!relax.tensor<[n * 2], f32>) -> !relax.tensor<[n * 2], f32>
relax.func @dyn(%s: !relax.shape<[n]>, %x: !relax.tensor<[2 * n], f32>) -> !relax.tensor<[2 * n], f32> {
  %y = relax.negative %x : (!relax.tensor<[2 * n], f32>)
  relax.return %y : !relax.tensor<[2 * n], f32>
}

// -----

// split gives one output buffer per tuple element (which bind n here).
// CHECK-LABEL: tir.prim_func @split(%x0: !tir.buffer<[n * 2, 3], f32>, %out0: !tir.buffer<[n, 3], f32>, %out1: !tir.buffer<[n, 3], f32>) {
// CHECK:         tir.load %x0[i0, i1] : f32
// CHECK:         tir.load %x0[i0 + n, i1] : f32
// CHECK-LABEL: relax.func @tuple_result
// CHECK-NEXT:    %t = relax.call_tir @split(%x) : (!relax.tensor<[n * 2, 3], f32>) -> !relax.tuple<!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>>
relax.func @tuple_result(%s: !relax.shape<[n]>, %x: !relax.tensor<[2 * n, 3], f32>) -> !relax.object {
  %t = relax.split %x {indices_or_sections = 2 : i64} : (!relax.tensor<[2 * n, 3], f32>)
  relax.return %t : !relax.tuple<!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>>
}

// -----

// An unknown shape takes the safety net: the operator's run-time kernel, its
// attributes passed along.
// CHECK-NOT:   tir.prim_func
// CHECK-LABEL: relax.func @unknown_shape
// CHECK-NEXT:    %y = relax.call_packed "relax.op.sum"(%x) {pure, op_attrs = {axis = array<i64: 1>, keepdims = true}} : (!relax.tensor<ndim=2, f32>) -> !relax.tensor<ndim=2, f32>
relax.func @unknown_shape(%x: !relax.tensor<ndim=2, f32>) -> !relax.tensor<ndim=2, f32> {
  %y = relax.sum %x {axis = array<i64: 1>, keepdims = true} : (!relax.tensor<ndim=2, f32>)
  relax.return %y : !relax.tensor<ndim=2, f32>
}

// -----

// unique's result length depends on the values: always the safety net.
// CHECK-NOT:   tir.prim_func
// CHECK-LABEL: relax.func @data_dependent
// CHECK-NEXT:    %y = relax.call_packed "relax.op.unique"(%x) {pure} : (!relax.tensor<[n], i64>) -> !relax.tensor<ndim=1, i64>
relax.func @data_dependent(%x: !relax.tensor<[n], i64>) -> !relax.tensor<ndim=1, i64> {
  %y = relax.unique %x : (!relax.tensor<[n], i64>)
  relax.return %y : !relax.tensor<ndim=1, i64>
}

// -----

// Prim operands of known value reach the kernel as sym arguments (the variables no
// buffer binds); an unknown one takes the safety net, which receives the values.
// The reversed-range obligation becomes an assertion of the kernel.
// CHECK-LABEL: tir.prim_func @arange(%out: !tir.buffer<[floordiv(b - a + 1, 2)], f32>) sym [a, b] {
// CHECK-NEXT:    tir.assert [0] <= [floordiv(b - a + 1, 2)], "relax.arange: the range is not reversed (its length is not negative)"
// CHECK-NEXT:    tir.for i in [0, floordiv(b - a + 1, 2)) {
// CHECK-NEXT:      %0 = tir.index a + i * 2 : i64
// CHECK-NEXT:      %1 = arith.sitofp %0 : i64 to f32
// CHECK-NEXT:      tir.store %out[i], %1 : f32
// CHECK-LABEL: relax.func @arange_between
// CHECK:         %0 = relax.call_tir @arange() sym [a, b] : () -> !relax.tensor<[floordiv(b - a + 1, 2)], f32>
// CHECK-NEXT:    %1 = relax.call_packed "relax.op.arange"(%a, %u, %one) {pure} : (!relax.prim<i64, a>, !relax.prim<i64>, !relax.prim<i64, 1>) -> !relax.tensor<ndim=1, i64>
relax.func @arange_between(%a: !relax.prim<i64, a>, %b: !relax.prim<i64, b>, %u: !relax.prim<i64>) -> !relax.tuple<!relax.tensor<ndim=1, f32>, !relax.tensor<ndim=1, i64>> {
  %one = relax.prim_value 1
  %two = relax.prim_value 2
  %0 = relax.arange %a, %b, %two {dtype = f32} : (!relax.prim<i64, a>, !relax.prim<i64, b>, !relax.prim<i64, 2>)
  %1 = relax.arange %a, %u, %one : (!relax.prim<i64, a>, !relax.prim<i64>, !relax.prim<i64, 1>)
  %t = relax.tuple %0, %1 : (!relax.tensor<[floordiv(b - a + 1, 2)], f32>, !relax.tensor<ndim=1, i64>)
  relax.return %t : !relax.tuple<!relax.tensor<[floordiv(b - a + 1, 2)], f32>, !relax.tensor<ndim=1, i64>>
}

// -----

// The facts an operator's deduction relies on but cannot prove become tir.asserts at
// the top of its kernel (before any loop reads memory); proven ones cost nothing.
// CHECK-LABEL: tir.prim_func @matmul(%x0: !tir.buffer<[n, k], f32>, %x1: !tir.buffer<[m, 4], f32>, %out: !tir.buffer<[n, 4], f32>) {
// CHECK-NEXT:    tir.assert [k] == [m], "relax.matmul: the lhs columns equal the rhs rows"
// CHECK-NEXT:    tir.for
// CHECK-LABEL: tir.prim_func @reshape(%x0: !tir.buffer<[n, 3], f32>, %out: !tir.buffer<[floordiv(n * 3, 2), 2], f32>) {
// CHECK-NEXT:    tir.assert [floormod(n * 3, 2)] == [0], "relax.reshape to [-1, 2]: the element count divides into the -1 entry"
// CHECK-NEXT:    tir.for
// CHECK-LABEL: tir.prim_func @max(%x0: !tir.buffer<[n, k], f32>, %out: !tir.buffer<[n], f32>) {
// CHECK-NEXT:    tir.assert [1] <= [k], "relax.max: the reduced axes are not empty"
// CHECK-LABEL: tir.prim_func @matmul1(
// CHECK-NOT:     tir.assert
// CHECK:         tir.for
relax.func @obligations(%x: !relax.tensor<[n, k], f32>, %y: !relax.tensor<[m, 4], f32>, %z: !relax.tensor<[n, 3], f32>, %w: !relax.tensor<[k, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  %a = relax.matmul %x, %y : (!relax.tensor<[n, k], f32>, !relax.tensor<[m, 4], f32>)
  %s = relax.shape [-1, 2] : !relax.shape<[-1, 2]>
  %b = relax.reshape %z, %s : (!relax.tensor<[n, 3], f32>, !relax.shape<[-1, 2]>)
  %c = relax.max %x {axis = array<i64: 1>} : (!relax.tensor<[n, k], f32>)
  %d = relax.matmul %x, %w : (!relax.tensor<[n, k], f32>, !relax.tensor<[k, 4], f32>)
  relax.return %d : !relax.tensor<[n, 4], f32>
}

// -----

// A depthwise convolution of a large window (7x7, unit strides, static width) is
// computed by rows: a banded matrix of the weights (zero off the band, read through
// the load's pad), then one sum over the window rows and the padded input row.
// CHECK-LABEL: tir.prim_func @conv2d(%x0: !tir.buffer<[n, 16, 8, 8], f32>, %x1: !tir.buffer<[16, 1, 7, 7], f32>, %out: !tir.buffer<[n, 16, 8, 8], f32>) {
// CHECK-NEXT:    %band = tir.alloc_buffer : !tir.buffer<[16, 7, 14, 8], f32>
// CHECK:           %{{.*}} = tir.load %x1[c, 0, kh, j - w] pad %{{.*}} : f32
// CHECK-NEXT:      tir.store %band[c, kh, j, w], %{{.*}} : f32
// CHECK:         tir.for kh in [0, 7) {
// CHECK-NEXT:      tir.for j in [0, 14) {
// CHECK:             %{{.*}} = tir.load %x0[b, c, h + kh - 3, j - 3] pad %{{.*}} : f32
// CHECK-NEXT:        %{{.*}} = tir.load %band[c, kh, j, w] : f32
relax.func @main(%x: !relax.tensor<[n, 16, 8, 8], f32>, %w: !relax.tensor<[16, 1, 7, 7], f32>) -> !relax.tensor<[n, 16, 8, 8], f32> {
  %r = relax.conv2d %x, %w {padding = array<i64: 3>, groups = 16 : i64} : (!relax.tensor<[n, 16, 8, 8], f32>, !relax.tensor<[16, 1, 7, 7], f32>) -> !relax.tensor<[n, 16, 8, 8], f32>
  relax.return %r : !relax.tensor<[n, 16, 8, 8], f32>
}

// -----

// A transposed convolution multiplies each kernel tap with the input (a product over
// the channels), then each output phase (position modulo the stride) sums the shifted
// products of its taps, and the output interleaves the phases: only products that exist
// are summed, as torch does.
// CHECK-LABEL: tir.prim_func @conv_transpose1d(%x0: !tir.buffer<[n, 4, w], f32>, %x1: !tir.buffer<[4, 3, 3], f32>, %out: !tir.buffer<[n, 3, w * 2], f32>) {
// CHECK:         %products = tir.alloc_buffer : !tir.buffer<[n, 3, w], f32>
// CHECK:         %phase = tir.alloc_buffer : !tir.buffer<[n, 3, w], f32>
// CHECK:         %phase_1 = tir.alloc_buffer : !tir.buffer<[n, 3, w], f32>
// CHECK:         tir.load %x0[i0, rc, i2] : f32
// CHECK-NEXT:    tir.load %x1[rc, i1, 2] : f32
// CHECK:         tir.load %products_1[i0, i1, i2 + 1] pad %{{.*}} : f32
// CHECK:         tir.store %phase[i0, i1, i2], %{{.*}} : f32
// CHECK:         tir.for i2 in [0, w * 2) {
// CHECK-NEXT:      tir.index floormod(i2, 2) : i64
// CHECK:           tir.load %phase_1[i0, i1, floordiv(i2, 2)] pad %{{.*}} : f32
// CHECK:           tir.load %phase[i0, i1, floordiv(i2, 2)] pad %{{.*}} : f32
// CHECK-NEXT:      arith.select
// CHECK-NEXT:      tir.store %out[i0, i1, i2], %{{.*}} : f32
// CHECK:       relax.call_tir @conv_transpose1d(%x, %k)
relax.func @main(%x: !relax.tensor<[n, 4, w], f32>, %k: !relax.tensor<[4, 3, 3], f32>) -> !relax.tensor<[n, 3, w * 2], f32> {
  %r = relax.conv_transpose1d %x, %k {strides = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>} : (!relax.tensor<[n, 4, w], f32>, !relax.tensor<[4, 3, 3], f32>)
  relax.return %r : !relax.tensor<[n, 3, w * 2], f32>
}

// -----

// A resize computes each axis's taps (source indices, f64 weights) over the output
// positions, then gathers and weighs them.
// CHECK-LABEL: tir.prim_func @resize(%x0: !tir.buffer<[n, 3, h], f32>, %out: !tir.buffer<[n, 3, h * 2], f32>) {
// CHECK-NEXT:    tir.assert [1] <= [h], "relax.resize: resampled axis 2 is not empty"
// CHECK-DAG:     %weight0 = tir.alloc_buffer : !tir.buffer<[h * 2], f64>
// CHECK-DAG:     %index0 = tir.alloc_buffer : !tir.buffer<[h * 2], i64>
// CHECK:         math.floor %{{.*}} : f64
// CHECK:       relax.call_tir @resize(%x)
relax.func @main(%x: !relax.tensor<[n, 3, h], f32>) -> !relax.tensor<[n, 3, h * 2], f32> {
  %s = relax.shape [n, 3, h * 2]
  %r = relax.resize %x, %s {mode = "linear", axes = array<i64: 2>} : (!relax.tensor<[n, 3, h], f32>, !relax.shape<[n, 3, h * 2]>)
  relax.return %r : !relax.tensor<[n, 3, h * 2], f32>
}

// -----

// Comparisons of booleans are the unsigned ones (numpy's order, False < True; a signed
// i1 would read True as -1); of signed integers the signed ones.
// CHECK-LABEL: tir.prim_func @less(
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK-LABEL: tir.prim_func @less1(
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : i32
relax.func @main(%a: !relax.tensor<[n], i1>, %b: !relax.tensor<[n], i1>, %c: !relax.tensor<[n], i32>, %d: !relax.tensor<[n], i32>) -> !relax.tuple<!relax.tensor<[n], i1>, !relax.tensor<[n], i1>> {
  %x = relax.less %a, %b : (!relax.tensor<[n], i1>, !relax.tensor<[n], i1>)
  %y = relax.less %c, %d : (!relax.tensor<[n], i32>, !relax.tensor<[n], i32>)
  %t = relax.tuple %x, %y : (!relax.tensor<[n], i1>, !relax.tensor<[n], i1>)
  relax.return %t : !relax.tuple<!relax.tensor<[n], i1>, !relax.tensor<[n], i1>>
}

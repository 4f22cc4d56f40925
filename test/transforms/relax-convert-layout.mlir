// RUN: relax-opt %s --split-input-file -p relax-convert-layout | filecheck %s
// RUN: not relax-opt %s -p 'relax-convert-layout{layout="NCHW"}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: relax-opt: error: bad options for pass 'relax-convert-layout': relax-convert-layout: layout must be NHWC, got NCHW

// A chain of a convolution with constant weights, its bias, ReLU, max pooling, a second
// convolution, a residual add and a global average pool is channels-last: permutes
// remain at the chain's input and after the pool only; the weights and the bias are
// permuted alongside (relax-fold-constant folds those).
// CHECK-LABEL: relax.func @chain
// CHECK-NEXT:    %w = relax.const
// CHECK-NEXT:    %b = relax.const
// CHECK-NEXT:    %0 = relax.permute_dims %x {axes = array<i64: 0, 2, 3, 1>} : (!relax.tensor<[n, 4, 8, 8], f32>) -> !relax.tensor<[n, 8, 8, 4], f32>
// CHECK-NEXT:    %1 = relax.permute_dims %w {axes = array<i64: 2, 3, 1, 0>} : (!relax.tensor<[4, 4, 3, 3], f32>) -> !relax.tensor<[3, 3, 4, 4], f32>
// CHECK-NEXT:    %c = relax.conv2d %0, %1 {padding = array<i64: 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (!relax.tensor<[n, 8, 8, 4], f32>, !relax.tensor<[3, 3, 4, 4], f32>) -> !relax.tensor<[n, 8, 8, 4], f32>
// CHECK-NEXT:    %2 = relax.expand_dims %b {axis = array<i64: 0>} : (!relax.tensor<[4, 1, 1], f32>) -> !relax.tensor<[1, 4, 1, 1], f32>
// CHECK-NEXT:    %3 = relax.permute_dims %2 {axes = array<i64: 0, 2, 3, 1>} : (!relax.tensor<[1, 4, 1, 1], f32>) -> !relax.tensor<[1, 1, 1, 4], f32>
// CHECK-NEXT:    %y = relax.add %c, %3 : (!relax.tensor<[n, 8, 8, 4], f32>, !relax.tensor<[1, 1, 1, 4], f32>) -> !relax.tensor<[n, 8, 8, 4], f32>
// CHECK-NEXT:    %r = relax.relu %y : (!relax.tensor<[n, 8, 8, 4], f32>) -> !relax.tensor<[n, 8, 8, 4], f32>
// CHECK-NEXT:    %p = relax.max_pool2d %r {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC"} : (!relax.tensor<[n, 8, 8, 4], f32>) -> !relax.tensor<[n, 4, 4, 4], f32>
// CHECK-NEXT:    %4 = relax.permute_dims %w {axes = array<i64: 2, 3, 1, 0>} : (!relax.tensor<[4, 4, 3, 3], f32>) -> !relax.tensor<[3, 3, 4, 4], f32>
// CHECK-NEXT:    %c2 = relax.conv2d %p, %4 {padding = array<i64: 1, 1>, data_layout = "NHWC", kernel_layout = "HWIO"} : (!relax.tensor<[n, 4, 4, 4], f32>, !relax.tensor<[3, 3, 4, 4], f32>) -> !relax.tensor<[n, 4, 4, 4], f32>
// CHECK-NEXT:    %sum = relax.add %c2, %p : (!relax.tensor<[n, 4, 4, 4], f32>, !relax.tensor<[n, 4, 4, 4], f32>) -> !relax.tensor<[n, 4, 4, 4], f32>
// CHECK-NEXT:    %m = relax.mean %sum {axis = array<i64: 1, 2>, keepdims = true} : (!relax.tensor<[n, 4, 4, 4], f32>) -> !relax.tensor<[n, 1, 1, 4], f32>
// CHECK-NEXT:    %m_1 = relax.permute_dims %m {axes = array<i64: 0, 3, 1, 2>} : (!relax.tensor<[n, 1, 1, 4], f32>) -> !relax.tensor<[n, 4, 1, 1], f32>
// CHECK-NEXT:    %out = relax.reshape %m_1, %s : (!relax.tensor<[n, 4, 1, 1], f32>, !relax.shape<[n, 4]>) -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.return %out : !relax.tensor<[n, 4], f32>
relax.func @chain(%x: !relax.tensor<[n, 4, 8, 8], f32>, %s: !relax.shape<[n, 4]>) -> !relax.tensor<[n, 4], f32> {
  %w = relax.const dense<0.5> : !relax.tensor<[4, 4, 3, 3], f32>
  %b = relax.const dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : !relax.tensor<[4, 1, 1], f32>
  %c = relax.conv2d %x, %w {padding = array<i64: 1, 1>} : (!relax.tensor<[n, 4, 8, 8], f32>, !relax.tensor<[4, 4, 3, 3], f32>)
  %y = relax.add %c, %b : (!relax.tensor<[n, 4, 8, 8], f32>, !relax.tensor<[4, 1, 1], f32>)
  %r = relax.relu %y : (!relax.tensor<[n, 4, 8, 8], f32>)
  %p = relax.max_pool2d %r {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (!relax.tensor<[n, 4, 8, 8], f32>)
  %c2 = relax.conv2d %p, %w {padding = array<i64: 1, 1>} : (!relax.tensor<[n, 4, 4, 4], f32>, !relax.tensor<[4, 4, 3, 3], f32>)
  %sum = relax.add %c2, %p : (!relax.tensor<[n, 4, 4, 4], f32>, !relax.tensor<[n, 4, 4, 4], f32>)
  %m = relax.mean %sum {axis = array<i64: 2, 3>, keepdims = true} : (!relax.tensor<[n, 4, 4, 4], f32>)
  %out = relax.reshape %m, %s : (!relax.tensor<[n, 4, 1, 1], f32>, !relax.shape<[n, 4]>)
  relax.return %out : !relax.tensor<[n, 4], f32>
}

// -----

// Weights that are not constants stay channels-first: permuting them would cost a
// transpose on every call.
// CHECK-LABEL: relax.func @weights_argument
// CHECK-NEXT:    %c = relax.conv2d %x, %w : (!relax.tensor<[1, 4, 8, 8], f32>, !relax.tensor<[4, 4, 1, 1], f32>) -> !relax.tensor<[1, 4, 8, 8], f32>
// CHECK-NEXT:    relax.return %c
relax.func @weights_argument(%x: !relax.tensor<[1, 4, 8, 8], f32>, %w: !relax.tensor<[4, 4, 1, 1], f32>) -> !relax.tensor<[1, 4, 8, 8], f32> {
  %c = relax.conv2d %x, %w : (!relax.tensor<[1, 4, 8, 8], f32>, !relax.tensor<[4, 4, 1, 1], f32>)
  relax.return %c : !relax.tensor<[1, 4, 8, 8], f32>
}

// -----

// The chain ends where an operand is neither channels-last nor constant (the tensor
// argument %z): the permute back is its operand. A rank-0 operand broadcasts in either
// layout and stays.
// CHECK-LABEL: relax.func @boundary
// CHECK-NEXT:    %w = relax.const
// CHECK-NEXT:    %half = relax.const
// CHECK-NEXT:    %0 = relax.permute_dims %x {axes = array<i64: 0, 2, 3, 1>} : (!relax.tensor<[1, 2, 8, 8], f32>) -> !relax.tensor<[1, 8, 8, 2], f32>
// CHECK-NEXT:    %1 = relax.permute_dims %w {axes = array<i64: 2, 3, 1, 0>} : (!relax.tensor<[3, 2, 1, 1], f32>) -> !relax.tensor<[1, 1, 2, 3], f32>
// CHECK-NEXT:    %c = relax.conv2d %0, %1 {strides = array<i64: 2, 2>, data_layout = "NHWC", kernel_layout = "HWIO"} : (!relax.tensor<[1, 8, 8, 2], f32>, !relax.tensor<[1, 1, 2, 3], f32>) -> !relax.tensor<[1, 4, 4, 3], f32>
// CHECK-NEXT:    %h = relax.multiply %c, %half : (!relax.tensor<[1, 4, 4, 3], f32>, !relax.tensor<[], f32>) -> !relax.tensor<[1, 4, 4, 3], f32>
// CHECK-NEXT:    %h_1 = relax.permute_dims %h {axes = array<i64: 0, 3, 1, 2>} : (!relax.tensor<[1, 4, 4, 3], f32>) -> !relax.tensor<[1, 3, 4, 4], f32>
// CHECK-NEXT:    %sum = relax.add %h_1, %z : (!relax.tensor<[1, 3, 4, 4], f32>, !relax.tensor<[1, 3, 4, 4], f32>) -> !relax.tensor<[1, 3, 4, 4], f32>
// CHECK-NEXT:    relax.return %sum
relax.func @boundary(%x: !relax.tensor<[1, 2, 8, 8], f32>, %z: !relax.tensor<[1, 3, 4, 4], f32>) -> !relax.tensor<[1, 3, 4, 4], f32> {
  %w = relax.const dense<1.0> : !relax.tensor<[3, 2, 1, 1], f32>
  %half = relax.const dense<0.5> : !relax.tensor<[], f32>
  %c = relax.conv2d %x, %w {strides = array<i64: 2, 2>} : (!relax.tensor<[1, 2, 8, 8], f32>, !relax.tensor<[3, 2, 1, 1], f32>)
  %h = relax.multiply %c, %half : (!relax.tensor<[1, 3, 4, 4], f32>, !relax.tensor<[], f32>)
  %sum = relax.add %h, %z : (!relax.tensor<[1, 3, 4, 4], f32>, !relax.tensor<[1, 3, 4, 4], f32>)
  relax.return %sum : !relax.tensor<[1, 3, 4, 4], f32>
}

// -----

// A reduction that drops its axes ends the chain; one that keeps them is renumbered.
// CHECK-LABEL: relax.func @reductions
// CHECK:         %c = relax.conv2d
// CHECK-NEXT:    %c_1 = relax.permute_dims %c {axes = array<i64: 0, 3, 1, 2>} : (!relax.tensor<[1, 8, 8, 3], f32>) -> !relax.tensor<[1, 3, 8, 8], f32>
// CHECK-NEXT:    %total = relax.sum %c_1 {axis = array<i64: 1>} : (!relax.tensor<[1, 3, 8, 8], f32>) -> !relax.tensor<[1, 8, 8], f32>
// CHECK-NEXT:    relax.return %total
relax.func @reductions(%x: !relax.tensor<[1, 2, 8, 8], f32>) -> !relax.tensor<[1, 8, 8], f32> {
  %w = relax.const dense<1.0> : !relax.tensor<[3, 2, 1, 1], f32>
  %c = relax.conv2d %x, %w : (!relax.tensor<[1, 2, 8, 8], f32>, !relax.tensor<[3, 2, 1, 1], f32>)
  %total = relax.sum %c {axis = array<i64: 1>} : (!relax.tensor<[1, 3, 8, 8], f32>)
  relax.return %total : !relax.tensor<[1, 8, 8], f32>
}

// -----

// A depthwise convolution (groups) and average pooling convert too.
// CHECK-LABEL: relax.func @depthwise
// CHECK-NEXT:    %w = relax.const
// CHECK-NEXT:    %0 = relax.permute_dims %x {axes = array<i64: 0, 2, 3, 1>} : (!relax.tensor<[2, 4, 6, 6], f32>) -> !relax.tensor<[2, 6, 6, 4], f32>
// CHECK-NEXT:    %1 = relax.permute_dims %w {axes = array<i64: 2, 3, 1, 0>} : (!relax.tensor<[4, 1, 3, 3], f32>) -> !relax.tensor<[3, 3, 1, 4], f32>
// CHECK-NEXT:    %c = relax.conv2d %0, %1 {padding = array<i64: 1, 1>, groups = 4 : i64, data_layout = "NHWC", kernel_layout = "HWIO"} : (!relax.tensor<[2, 6, 6, 4], f32>, !relax.tensor<[3, 3, 1, 4], f32>) -> !relax.tensor<[2, 6, 6, 4], f32>
// CHECK-NEXT:    %p = relax.avg_pool2d %c {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, layout = "NHWC"} : (!relax.tensor<[2, 6, 6, 4], f32>) -> !relax.tensor<[2, 3, 3, 4], f32>
// CHECK-NEXT:    %p_1 = relax.permute_dims %p {axes = array<i64: 0, 3, 1, 2>} : (!relax.tensor<[2, 3, 3, 4], f32>) -> !relax.tensor<[2, 4, 3, 3], f32>
// CHECK-NEXT:    relax.return %p_1
relax.func @depthwise(%x: !relax.tensor<[2, 4, 6, 6], f32>) -> !relax.tensor<[2, 4, 3, 3], f32> {
  %w = relax.const dense<1.0> : !relax.tensor<[4, 1, 3, 3], f32>
  %c = relax.conv2d %x, %w {padding = array<i64: 1, 1>, groups = 4 : i64} : (!relax.tensor<[2, 4, 6, 6], f32>, !relax.tensor<[4, 1, 3, 3], f32>)
  %p = relax.avg_pool2d %c {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (!relax.tensor<[2, 4, 6, 6], f32>)
  relax.return %p : !relax.tensor<[2, 4, 3, 3], f32>
}

// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Provable mismatches and bad attributes of the neural-network operators.

relax.func @softmax_axis(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.softmax' op axis -3 is out of range for rank 2}}
  %0 = relax.softmax %x {axis = -3 : i64} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @softmax_of_integers(%x: !relax.tensor<[n], i32>) -> !relax.object {
  // expected-error @+1 {{'relax.log_softmax' op expected operand with a floating-point element type}}
  %0 = relax.log_softmax %x : (!relax.tensor<[n], i32>)
  relax.return %x : !relax.tensor<[n], i32>
}

// -----

relax.func @layer_norm_gamma(%x: !relax.tensor<[n, 4], f32>, %g: !relax.tensor<[3], f32>, %b: !relax.tensor<[4], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.layer_norm' op expected gamma of shape [4] (x along axes [-1]), got !relax.tensor<[3], f32>}}
  %0 = relax.layer_norm %x, %g, %b {axes = array<i64: -1>} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[3], f32>, !relax.tensor<[4], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @conv_channels(%x: !relax.tensor<[n, 4, h, w], f32>, %k: !relax.tensor<[8, 3, 3, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv2d' op expected data with 3 channels (weight input channels * groups), got !relax.tensor<[n, 4, h, w], f32>}}
  %0 = relax.conv2d %x, %k : (!relax.tensor<[n, 4, h, w], f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  relax.return %x : !relax.tensor<[n, 4, h, w], f32>
}

// -----

relax.func @conv_groups(%x: !relax.tensor<[n, 4, w], f32>, %k: !relax.tensor<[3, 2, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv1d' op expected output channels divisible by groups = 2, got !relax.tensor<[3, 2, 3], f32>}}
  %0 = relax.conv1d %x, %k {groups = 2 : i64} : (!relax.tensor<[n, 4, w], f32>, !relax.tensor<[3, 2, 3], f32>)
  relax.return %x : !relax.tensor<[n, 4, w], f32>
}

// -----

relax.func @conv_rank(%x: !relax.tensor<[n, 3, w], f32>, %k: !relax.tensor<[8, 3, 3, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv2d' op expected NCHW data of rank 4, got !relax.tensor<[n, 3, w], f32>}}
  %0 = relax.conv2d %x, %k : (!relax.tensor<[n, 3, w], f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3, w], f32>
}

// -----

relax.func @conv_padding(%x: !relax.tensor<[n, 3, h, w], f32>, %k: !relax.tensor<[8, 3, 3, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv2d' op expected 'padding' to have 1, 2 or 4 values, got [1, 2, 3]}}
  %0 = relax.conv2d %x, %k {padding = array<i64: 1, 2, 3>} : (!relax.tensor<[n, 3, h, w], f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}

// -----

relax.func @conv_too_small(%x: !relax.tensor<[n, 3, 2, 8], f32>, %k: !relax.tensor<[8, 3, 3, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv2d' op expected spatial dimension 0 (padded size 2) to hold the window of extent 3}}
  %0 = relax.conv2d %x, %k : (!relax.tensor<[n, 3, 2, 8], f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3, 2, 8], f32>
}

// -----

relax.func @pool_size(%x: !relax.tensor<[n, 3, h, w], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.max_pool2d' op expected a 'pool_size' property}}
  %0 = relax.max_pool2d %x : (!relax.tensor<[n, 3, h, w], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}

// -----

relax.func @pool_strides(%x: !relax.tensor<[n, 3, h, w], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.avg_pool2d' op expected positive 'strides', got [0, 1]}}
  %0 = relax.avg_pool2d %x {pool_size = array<i64: 2>, strides = array<i64: 0, 1>} : (!relax.tensor<[n, 3, h, w], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}

// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Provable mismatches and bad attributes of the N-d windows and of relax.resize.

relax.func @conv_transpose_channels(%x: !relax.tensor<[n, 4, h, w], f32>, %k: !relax.tensor<[3, 3, 3, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv_transpose2d' op expected data with 3 channels (the weight's first dimension), got !relax.tensor<[n, 4, h, w], f32>}}
  %0 = relax.conv_transpose2d %x, %k : (!relax.tensor<[n, 4, h, w], f32>, !relax.tensor<[3, 3, 3, 3], f32>)
  relax.return %x : !relax.tensor<[n, 4, h, w], f32>
}

// -----

relax.func @conv_transpose_groups(%x: !relax.tensor<[n, 3, w], f32>, %k: !relax.tensor<[3, 2, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv_transpose1d' op expected input channels divisible by groups = 2, got !relax.tensor<[3, 2, 3], f32>}}
  %0 = relax.conv_transpose1d %x, %k {groups = 2 : i64} : (!relax.tensor<[n, 3, w], f32>, !relax.tensor<[3, 2, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3, w], f32>
}

// -----

relax.func @conv_transpose_cropped_away(%x: !relax.tensor<[n, 3, 1], f32>, %k: !relax.tensor<[3, 2, 1], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv_transpose1d' op expected the padding of spatial dimension 0 to leave an output, got size -1}}
  %0 = relax.conv_transpose1d %x, %k {padding = array<i64: 1>} : (!relax.tensor<[n, 3, 1], f32>, !relax.tensor<[3, 2, 1], f32>)
  relax.return %x : !relax.tensor<[n, 3, 1], f32>
}

// -----

relax.func @conv3d_rank(%x: !relax.tensor<[n, 3, h, w], f32>, %k: !relax.tensor<[4, 3, 1, 1, 1], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.conv3d' op expected NCDHW data of rank 5, got !relax.tensor<[n, 3, h, w], f32>}}
  %0 = relax.conv3d %x, %k : (!relax.tensor<[n, 3, h, w], f32>, !relax.tensor<[4, 3, 1, 1, 1], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}

// -----

relax.func @pool_padding(%x: !relax.tensor<[n, 3, w], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.max_pool1d' op expected the padding of spatial dimension 0 (2, 2) below the window extent 2}}
  %0 = relax.max_pool1d %x {pool_size = array<i64: 2>, padding = array<i64: 2>, dilation = array<i64: 3>} : (!relax.tensor<[n, 3, w], f32>)
  relax.return %x : !relax.tensor<[n, 3, w], f32>
}

// -----

relax.func @resize_kept_axis(%x: !relax.tensor<[n, 3, h, w], f32>) -> !relax.object {
  %s = relax.shape [n, 4, h, 8]
  // expected-error @+1 {{'relax.resize' op expected axis 1, not resampled, to keep its size}}
  %0 = relax.resize %x, %s {mode = "linear", axes = array<i64: 2, 3>} : (!relax.tensor<[n, 3, h, w], f32>, !relax.shape<[n, 4, h, 8]>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}

// -----

relax.func @resize_linear_integers(%x: !relax.tensor<[n, 3], i32>) -> !relax.object {
  %s = relax.shape [n, 6]
  // expected-error @+1 {{'relax.resize' op expected operand with a floating-point element type}}
  %0 = relax.resize %x, %s {mode = "linear"} : (!relax.tensor<[n, 3], i32>, !relax.shape<[n, 6]>)
  relax.return %x : !relax.tensor<[n, 3], i32>
}

// -----

relax.func @resize_mode(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  %s = relax.shape [n, 6]
  // expected-error @+1 {{'relax.resize' op expected 'mode' to be one of nearest, linear, cubic, got "area"}}
  %0 = relax.resize %x, %s {mode = "area"} : (!relax.tensor<[n, 3], f32>, !relax.shape<[n, 6]>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @resize_crop_without_roi(%x: !relax.tensor<[n, 3], f32>, %s: !relax.tensor<[1], f64>) -> !relax.object {
  %t = relax.shape [n, 6]
  // expected-error @+1 {{'relax.resize' op expected scales and a roi operand exactly for tf_crop_and_resize, got 1 operands after the shape}}
  %0 = relax.resize %x, %t, %s {mode = "linear", axes = array<i64: 1>, coordinate_transformation_mode = "tf_crop_and_resize"} : (!relax.tensor<[n, 3], f32>, !relax.shape<[n, 6]>, !relax.tensor<[1], f64>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @grid_sample_coordinates(%x: !relax.tensor<[n, 3, h, w], f32>, %g: !relax.tensor<[n, 4, 4, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.grid_sample' op expected grid's last axis to hold 2 coordinates, got !relax.tensor<[n, 4, 4, 3], f32>}}
  %0 = relax.grid_sample %x, %g : (!relax.tensor<[n, 3, h, w], f32>, !relax.tensor<[n, 4, 4, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}

// -----

relax.func @grid_sample_batch(%x: !relax.tensor<[2, 3, h, w], f32>, %g: !relax.tensor<[3, 4, 4, 2], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.grid_sample' op expected x and grid of one batch}}
  %0 = relax.grid_sample %x, %g {padding_mode = "reflection"} : (!relax.tensor<[2, 3, h, w], f32>, !relax.tensor<[3, 4, 4, 2], f32>)
  relax.return %x : !relax.tensor<[2, 3, h, w], f32>
}

// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Bad axes of the reductions.

relax.func @axis_range(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.sum' op axis 2 is out of range for rank 2}}
  %0 = relax.sum %x {axis = array<i64: 2>} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @repeated_axis(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.max' op axis [0, -2] repeats an axis (rank 2)}}
  %0 = relax.max %x {axis = array<i64: 0, -2>} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @mean_of_i1(%x: !relax.tensor<[n], i1>) -> !relax.object {
  // expected-error @+1 {{'relax.mean' op expected operand with a numeric (not i1) element type, got !relax.tensor<[n], i1>}}
  %0 = relax.mean %x : (!relax.tensor<[n], i1>)
  relax.return %x : !relax.tensor<[n], i1>
}

// -----

relax.func @keepdims_not_a_bool(%x: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.sum' op property 'keepdims' must be a boolean}}
  %0 = relax.sum %x {keepdims = 1 : i64} : (!relax.tensor<[n], f32>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @argmax_of_an_empty_axis(%x: !relax.tensor<[n, 0], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.argmax' op relax.argmax: the axis is not empty: 1 <= 0 is false}}
  %0 = relax.argmax %x {axis = 1 : i64} : (!relax.tensor<[n, 0], f32>)
  relax.return %x : !relax.tensor<[n, 0], f32>
}

// -----

relax.func @argmin_axis_range(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.argmin' op axis 2 is out of range for rank 2}}
  %0 = relax.argmin %x {axis = 2 : i64} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Provable mismatches and bad attributes of the layout operators.

relax.func @broadcast_mismatch(%x: !relax.tensor<[3, 4], f32>, %y: !relax.tensor<[n], f32>) -> !relax.object {
  %s = relax.shape [n, 5, 4] : !relax.shape<[n, 5, 4]>
  // expected-error @+1 {{'relax.broadcast_to' op cannot broadcast !relax.tensor<[3, 4], f32> to [n, 5, 4]: dimension 0 is 3, neither 1 nor 5}}
  %0 = relax.broadcast_to %x, %s : (!relax.tensor<[3, 4], f32>, !relax.shape<[n, 5, 4]>)
  relax.return %x : !relax.tensor<[3, 4], f32>
}

// -----

relax.func @pad_width(%x: !relax.tensor<[n, 4], f32>) -> !relax.object {
  %f = relax.const dense<0.0> : !relax.tensor<[], f32>
  // expected-error @+1 {{expected 'pad_width' to have 2 values per axis (4), got [1, 1]}}
  %0 = relax.pad %x, %f {pad_width = array<i64: 1, 1>} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @scatter_src(%x: !relax.tensor<[n, 6], f32>, %s: !relax.tensor<[n, 4], f32>) -> !relax.object {
  // expected-error @+1 {{expected src of shape [n, 3] (the slice), got !relax.tensor<[n, 4], f32> (dimension 1)}}
  %0 = relax.slice_scatter %x, %s {axis = 1 : i64, begin = 1 : i64, step = 2 : i64} : (!relax.tensor<[n, 6], f32>, !relax.tensor<[n, 4], f32>)
  relax.return %x : !relax.tensor<[n, 6], f32>
}

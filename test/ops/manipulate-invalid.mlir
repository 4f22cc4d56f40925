// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Provable mismatches and bad attributes of the shape manipulation operators.

relax.func @reshape_element_count(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  %s = relax.shape [n * 3 + 1] : !relax.shape<[n * 3 + 1]>
  // expected-error @+1 {{'relax.reshape' op cannot reshape !relax.tensor<[n, 3], f32> (n * 3 elements) to [n * 3 + 1] (n * 3 + 1 elements)}}
  %0 = relax.reshape %x, %s : (!relax.tensor<[n, 3], f32>, !relax.shape<[n * 3 + 1]>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @reshape_indivisible(%x: !relax.tensor<[3, 5], f32>) -> !relax.object {
  %s = relax.shape [2, -1] : !relax.shape<[2, -1]>
  // expected-error @+1 {{cannot reshape !relax.tensor<[3, 5], f32> (15 elements) to [2, -1]: the element count is not a multiple of 2}}
  %0 = relax.reshape %x, %s : (!relax.tensor<[3, 5], f32>, !relax.shape<[2, -1]>)
  relax.return %x : !relax.tensor<[3, 5], f32>
}

// -----

relax.func @reshape_two_inferred(%x: !relax.tensor<[n, 4], f32>) -> !relax.object {
  %s = relax.shape [-1, -1] : !relax.shape<[-1, -1]>
  // expected-error @+1 {{expected at most one -1 entry in shape [-1, -1]}}
  %0 = relax.reshape %x, %s : (!relax.tensor<[n, 4], f32>, !relax.shape<[-1, -1]>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @concat_non_axis(%a: !relax.tensor<[n, 3], f32>, %b: !relax.tensor<[n, 4], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.concat' op expected tensors that agree except in axis 0, got !relax.tensor<[n, 3], f32> and !relax.tensor<[n, 4], f32> (dimension 1)}}
  %0 = relax.concat %a, %b {axis = 0 : i64} : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 4], f32>)
  relax.return %a : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @concat_ranks(%a: !relax.tensor<[n, 3], f32>, %b: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{expected tensors of one rank, got !relax.tensor<[n, 3], f32>, !relax.tensor<[n], f32>}}
  %0 = relax.concat %a, %b : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n], f32>)
  relax.return %a : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @concat_axis(%a: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.concat' op axis 2 is out of range for rank 2}}
  %0 = relax.concat %a, %a {axis = 2 : i64} : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>)
  relax.return %a : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @split_sections(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.split' op cannot split axis 1 of !relax.tensor<[n, 3], f32> into 2 equal sections}}
  %0 = relax.split %x {indices_or_sections = 2 : i64, axis = -1 : i64} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @squeeze_non_one(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.squeeze' op cannot squeeze axis 1 of !relax.tensor<[n, 3], f32>: expected size 1, got 3}}
  %0 = relax.squeeze %x {axis = array<i64: 1>} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @permute_not_a_permutation(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.permute_dims' op axes [1, -1] repeats an axis (rank 2)}}
  %0 = relax.permute_dims %x {axes = array<i64: 1, -1>} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @expand_dims_range(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.expand_dims' op axis -4 is out of range for rank 3}}
  %0 = relax.expand_dims %x {axis = array<i64: -4>} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @take_float_indices(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.take' op expected indices with a signed integer element type, got !relax.tensor<[n, 3], f32>}}
  %0 = relax.take %x, %x {axis = 0 : i64} : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @strided_slice_zero_stride(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.strided_slice' op expected non-zero strides, got [0]}}
  %0 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 0>, end = array<i64: 2>, strides = array<i64: 0>} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @strided_slice_lengths(%x: !relax.tensor<[n, 3], f32>) -> !relax.object {
  // expected-error @+1 {{expected axes, begin, end and strides of one length, got 2, 1, 1 and 2}}
  %0 = relax.strided_slice %x {axes = array<i64: 0, 1>, begin = array<i64: 0>, end = array<i64: 2>} : (!relax.tensor<[n, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @slice_bounds_twice(%x: !relax.tensor<[n, 4], f32>, %k: !relax.prim<i64, k>) -> !relax.object {
  // expected-error @+1 {{'relax.strided_slice' op expected begin and end as properties or as prim operands, not both}}
  %0 = relax.strided_slice %x, %k, %k {axes = array<i64: 0>, begin = array<i64: 0>} : (!relax.tensor<[n, 4], f32>, !relax.prim<i64, k>, !relax.prim<i64, k>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @slice_bound_count(%x: !relax.tensor<[n, 4], f32>, %k: !relax.prim<i64, k>) -> !relax.object {
  // expected-error @+1 {{'relax.strided_slice' op expected a begin and an end prim operand per axis (4), got 2}}
  %0 = relax.strided_slice %x, %k, %k {axes = array<i64: 0, 1>} : (!relax.tensor<[n, 4], f32>, !relax.prim<i64, k>, !relax.prim<i64, k>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @slice_prim_negative_stride(%x: !relax.tensor<[n, 4], f32>, %k: !relax.prim<i64, k>) -> !relax.object {
  // expected-error @+1 {{'relax.strided_slice' op prim bounds need positive strides, got [-1]}}
  %0 = relax.strided_slice %x, %k, %k {axes = array<i64: 0>, strides = array<i64: -1>} : (!relax.tensor<[n, 4], f32>, !relax.prim<i64, k>, !relax.prim<i64, k>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @slice_negative_symbolic_bound(%x: !relax.tensor<[n, 4], f32>, %k: !relax.prim<i64, k>) -> !relax.object {
  %zero = relax.prim_value 0
  %end = relax.prim_value -k - 1
  // expected-error @+1 {{'relax.strided_slice' op relax.strided_slice: a symbolic slice bound is not negative: 0 <= -k - 1 is false}}
  %0 = relax.strided_slice %x, %zero, %end {axes = array<i64: 0>} : (!relax.tensor<[n, 4], f32>, !relax.prim<i64, 0>, !relax.prim<i64, -k - 1>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Where unsigned integers are refused: as indices (a position is computed in i64, where
// a ui64 index could wrap to count from the end), as an operand of another type.

relax.func @unsigned_indices(%x: !relax.tensor<[n, 3], f32>, %i: !relax.tensor<[k], ui64>) -> !relax.object {
  // expected-error @+1 {{'relax.take' op expected indices with a signed integer element type, got !relax.tensor<[k], ui64>}}
  %0 = relax.take %x, %i {axis = 0 : i64} : (!relax.tensor<[n, 3], f32>, !relax.tensor<[k], ui64>)
  relax.return %x : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @signedness_mismatch(%a: !relax.tensor<[n], ui32>, %b: !relax.tensor<[n], i32>) -> !relax.object {
  // expected-error @+1 {{'relax.add' op operands must have the same element type, got !relax.tensor<[n], ui32>, !relax.tensor<[n], i32> (convert one with relax.astype)}}
  %0 = relax.add %a, %b : (!relax.tensor<[n], ui32>, !relax.tensor<[n], i32>)
  relax.return %a : !relax.tensor<[n], ui32>
}

// -----

// expected-error @+1 {{a prim value has an integer element type (i8 ... i64, ui8 ... ui64), got 'bf16'}}
relax.func @float_prim(%k: !relax.prim<bf16>) -> !relax.object {
  relax.return %k : !relax.prim<bf16>
}

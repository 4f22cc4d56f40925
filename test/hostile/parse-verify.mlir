// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Hostile input (issue 15): each chunk once ended in an internal error; each is now a
// located error.

tir.prim_func @index_without_expression(%X: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    // expected-error @+1 {{expected one symbolic index expression}}
    %i = tir.index : f32
  }
}

// -----

// expected-error @+1 {{'relax.object' takes 0 parameter(s), got 2}}
relax.func @object_with_parameters(%x: !relax.object<[8], f32>) -> !relax.object {
  relax.return %x : !relax.object
}

// -----

relax.func @huge_splat() -> !relax.tensor<[9223372036854775807, 4], f32> {
  // expected-error @+1 {{constant of shape [9223372036854775807, 4] is too large (36893488147419103228 elements of 4 bytes)}}
  %c = relax.const dense<0.0> : !relax.tensor<[9223372036854775807, 4], f32>
  relax.return %c : !relax.tensor<[9223372036854775807, 4], f32>
}

// -----

vm.func @duplicated_label(%c) {
  vm.if %c, ^bb1, ^bb2
^bb1:
  vm.ret %c
// expected-error @+1 {{re-declaration of block 'bb1'}}
^bb1:
  vm.ret %c
^bb2:
  vm.ret %c
}

// -----

relax.func @alloc_without_offset(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  %s = vm.alloc_storage [64] {dtype = "float32"} : !relax.object
  // expected-error @+1 {{vm.alloc_tensor takes one offset}}
  %t = vm.alloc_tensor %s [] shape [4] {dtype = "float32"} : !relax.tensor<[4], f32>
  relax.return %x : !relax.tensor<[4], f32>
}

// -----

relax.func @unknown_vm_dtype(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  // expected-error @+1 {{unknown dtype 'float128' (expected one of float16, float32, float64, bfloat16, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64)}}
  %t = vm.alloc_tensor_direct shape [4] {dtype = "float128"} : !relax.tensor<[4], f32>
  relax.return %x : !relax.tensor<[4], f32>
}

// -----

// expected-error @+1 {{dimension -1 of shape [n, -1] is negative}}
relax.func @negative_dimension(%x: !relax.tensor<[n, -1], f32>) -> !relax.object {
  relax.return %x : !relax.tensor<[n, -1], f32>
}

// -----

// expected-error @+1 {{dimension 9223372036854775808 of shape [9223372036854775808] does not fit in 64 bits}}
relax.func @dimension_over_int64(%x: !relax.tensor<[9223372036854775808], f32>) -> !relax.object {
  relax.return %x : !relax.tensor<[9223372036854775808], f32>
}

// -----

// expected-error @+1 {{rank 4611686018427387904 exceeds the maximum of 64}}
relax.func @huge_rank(%s: !relax.shape<ndim=4611686018427387904>) -> !relax.object {
  relax.return %s : !relax.shape<ndim=4611686018427387904>
}

// -----

// 16 binomial factors: 65536 terms once expanded.
// expected-error @+1 {{symbolic expression too large: its canonical form would have 65536 terms (at most 256)}}
relax.func @product_of_sums(%x: !relax.tensor<[(a + b) * (c + d) * (e + f) * (g + h) * (i + j) * (k + l) * (m + n) * (o + p) * (q + r) * (s + t) * (u + v) * (w + x) * (y + z) * (a1 + b1) * (c1 + d1) * (e1 + f1)], f32>) -> !relax.object {
  relax.return %x : !relax.object
}

// -----

// 1000 unary minus signs: no recursion.
relax.func @unary_minus_chain(%x: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.shape' op declared result type !relax.shape<[-2]> does not match the deduced type !relax.shape<[2]>}}
  %s = relax.shape [----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------2] : !relax.shape<[-2]>
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

vm.func @vm_const_i4(%x) {
  // expected-error @+1 {{unsupported element type i4 of a vm.const tensor}}
  %d = vm.const dense<[1, 2]> : tensor<2xi4>
  vm.ret %x
}

// -----

relax.func @split_into_millions(%x: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.split' op expected at most 4096 sections (one result each), got 9223372036854775807}}
  %0 = relax.split %x {indices_or_sections = 9223372036854775807 : i64} : (!relax.tensor<[n], f32>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

tir.prim_func @float_out_of_range(%A: !tir.buffer<[n], f16>) {
  // expected-error @+1 {{float too large to pack with e format}}
  %big = arith.constant -1099511627776 : f16
}

// -----

relax.func @integer_out_of_range() -> !relax.tensor<[2], i8> {
  // expected-error @+1 {{Integer value 300 is out of range for type i8}}
  %c = relax.const dense<300> : !relax.tensor<[2], i8>
  relax.return %c : !relax.tensor<[2], i8>
}

// -----

relax.func @symbolic_heap_index(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  %h = vm.alloc_shape_heap 3 : !relax.tensor<[3], i64>
  %sx = vm.shape_of %x : (!relax.tensor<[n, 4], f32>) -> !relax.shape<[n, 4]>
  // expected-error @+1 {{shape heap index n - 1 is not a non-negative integer}}
  vm.store_shape %sx, %h [n - 1, 1]
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @empty_but_too_large() -> !relax.tensor<[9223372036854775807, 0], f32> {
  // expected-error @+1 {{constant of shape [9223372036854775807, 0] is too large (0 elements of 4 bytes)}}
  %c = relax.const dense<0.0> : !relax.tensor<[9223372036854775807, 0], f32>
  relax.return %c : !relax.tensor<[9223372036854775807, 0], f32>
}

// -----

// The prim_func's scoping check walks its body before the body's ops are verified.
"tir.prim_func"() <{sym_name = "assert_without_rhs", function_type = (!tir.buffer<[n], i8>) -> (), sym_params = #sym.dims<[]>}> ({
^bb0(%X: !tir.buffer<[n], i8>):
  // expected-error @+1 {{'tir.assert' op property 'rhs' expected in operation 'tir.assert'}}
  "tir.assert"() <{lhs = #sym.dims<[n]>, relation = "==", message = "generic form"}> : () -> ()
}) : () -> ()

// The --verify-diagnostics checker itself: wrong expectations must fail.
// RUN: not relax-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// An expected error that is not produced.
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 2]]:1: error: expected error "this is never reported" was not produced
relax.func @clean(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{this is never reported}}
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// An error that is not expected.
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 3]]:3: error: unexpected error: 'relax.return' op declared function result type
// CHECK-SAME: !relax.tensor<[n], i32> does not match the deduced type !relax.tensor<[n], f32>
relax.func @unexpected(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], i32> {
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// The right message on the wrong line fails twice.
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 4]]:3: error: unexpected error: 'relax.return'
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 2]]:1: error: expected error "does not match" was not produced
relax.func @wrong_line(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], i32> {
  // expected-error @+2 {{does not match}}
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// A warning expected as an error does not match.
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 4]]:3: error: unexpected error: 'relax.return'
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 2]]:1: error: expected warning "declared function result" was not produced
relax.func @severity(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], i32> {
  // expected-warning @+1 {{declared function result}}
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// A correct expectation produces no complaint for its chunk.
// CHECK-NOT: matched
relax.func @matched(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], i32> {
  // expected-error @below {{does not match the deduced type}}
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// An annotation without its closing braces is a located error (and scanning stays
// linear however many follow on the line).
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 2]]:6: error: unterminated 'expected-error' annotation: no {{.*}} after {{.*}}
relax.func @unterminated(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error {{never closed expected-error {{ expected-error {{
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// So is a designation past the end of the input.
// CHECK: verify-diagnostics-checker.mlir:[[# @LINE + 2]]:6: error: 'expected-error @+30' designates a line outside the input
relax.func @past_the_end(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+30 {{nothing there}}
  relax.return %x : !relax.tensor<[n], f32>
}

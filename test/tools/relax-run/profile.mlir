// relax-run --profile: a second run with every kernel and builtin call timed, printed
// as a table largest first (the relax operators fused into each kernel named), the
// time outside every call last; --profile-trace writes the same run as a Chrome trace.

// RUN: relax-run %s --inputs %S/Inputs/profile.npz --print --profile --profile-trace %t.json | filecheck %s
// CHECK: out0: float32[2, 3] = {{\[\[}}1., 1., 1.],
// CHECK-NEXT:                        [1., 1., 1.]]
// CHECK-NEXT: main: {{[0-9.]+}} ms, {{[0-9]+}} calls; kernels {{[0-9.]+}}%, outside kernels {{[0-9.]+}}%
// CHECK-NEXT: name {{ +}}kind {{ +}}calls {{ +}}total ms {{ +}}share {{ +}}mean us {{ +}}operators
// CHECK-DAG: fused_matmul_add_relu {{ +}}kernel {{ +}}1 {{.*}} matmul add relu
// CHECK-DAG: vm.builtin.check_tensor_info {{ +}}builtin {{ +}}2 {{.*}}
// CHECK: (VM dispatch) {{ +}}vm {{ +}}1 {{.*}}

// RUN: python3 -c "import json, sys; t = json.load(open(sys.argv[1])); print(sorted({e['cat'] for e in t['traceEvents']}))" %t.json | filecheck %s --check-prefix=TRACE
// TRACE: ['builtin', 'kernel', 'vm function']

// RUN: not relax-run %s --inputs %S/Inputs/profile.npz --profile --interpret 2>&1 | filecheck %s --check-prefix=INTERP
// INTERP: relax-run: error: --profile times the VM's calls: it cannot be used with --interpret

relax.func @main(%x: !relax.tensor<[n, 4], f32>, %w: !relax.tensor<[4, 3], f32>) -> !relax.tensor<[n, 3], f32> {
  %y = relax.dataflow -> !relax.tensor<[n, 3], f32> {
    %0 = relax.matmul %x, %w : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4, 3], f32>) -> !relax.tensor<[n, 3], f32>
    %1 = relax.add %0, %0 : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 3], f32>) -> !relax.tensor<[n, 3], f32>
    %2 = relax.relu %1 : (!relax.tensor<[n, 3], f32>) -> !relax.tensor<[n, 3], f32>
    relax.output %2 : !relax.tensor<[n, 3], f32>
  }
  relax.return %y : !relax.tensor<[n, 3], f32>
}

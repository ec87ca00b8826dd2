module @jit_callbacks attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  "sdy.mesh"() {mesh = #sdy.mesh<[], device_ids=[0]>, stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}, sym_name = "maximal_mesh_0"} : () -> ()
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<4xf32>) -> (!stablehlo.token {jax.token = true}, tensor<4xf32> {jax.result_info = "result[0]"}, tensor<0xf32> {jax.result_info = "result[1]"}) {
    %0 = "stablehlo.custom_call"(%arg1) {api_version = 1 : i32, backend_config = "", call_target_name = "xla_ffi_python_gpu_callback", called_computations = [], has_side_effect = false, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<4xf32>) -> tensor<4xf32>
    %1:3 = "stablehlo.custom_call"(%arg0, %0) {api_version = 1 : i32, backend_config = "", call_target_name = "xla_ffi_python_gpu_callback", called_computations = [], has_side_effect = true, mhlo.backend_config = {index = 1 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>, <@maximal_mesh_0, []>, <@maximal_mesh_0, []>]>} : (!stablehlo.token, tensor<4xf32>) -> (!stablehlo.token, tensor<4xf32>, tensor<0xf32>)
    "stablehlo.custom_call"() {api_version = 1 : i32, backend_config = "", call_target_name = "xla_ffi_python_gpu_callback", called_computations = [], has_side_effect = true, mhlo.backend_config = {index = 2 : ui64}, operand_layouts = [], result_layouts = [], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : () -> ()
    return %1#0, %1#1, %1#2 : !stablehlo.token, tensor<4xf32>, tensor<0xf32>
  }
}


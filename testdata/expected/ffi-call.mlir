module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<2x3xi32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}) {
    %0:2 = "stablehlo.custom_call"(%arg0, %arg0) {api_version = 1 : i32, backend_config = "", call_target_name = "my_target", called_computations = [], has_side_effect = true, mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3xi32>, tensor<f32>)
    "stablehlo.custom_call"(%arg0) {api_version = 1 : i32, backend_config = "", call_target_name = "side", called_computations = [], has_side_effect = true, mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [], result_layouts = []} : (tensor<4xf32>) -> ()
    %1 = "stablehlo.custom_call"(%arg0) {api_version = 1 : i32, backend_config = "", call_target_name = "my_target", called_computations = [], has_side_effect = false, mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<4xf32>) -> tensor<4xf32>
    return %0#0, %0#1, %1 : tensor<2x3xi32>, tensor<f32>, tensor<4xf32>
  }
}


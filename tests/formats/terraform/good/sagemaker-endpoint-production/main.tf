# A production endpoint: it serves continuously, so staying up is what it is for (no GL201).
provider "aws" {
  region = "eu-west-1"
}

resource "aws_sagemaker_endpoint_configuration" "llm" {
  name = "llm-g5"

  production_variants {
    variant_name           = "AllTraffic"
    model_name             = aws_sagemaker_model.llm.name
    instance_type          = "ml.g5.2xlarge"
    initial_instance_count = 1
  }
}

# A demo endpoint: its name says it is not production, and one instance stays up with nobody
# calling it.
provider "aws" {
  region = "eu-west-1"
}

resource "aws_sagemaker_endpoint_configuration" "demo" {
  name = "chat-demo"

  production_variants {
    variant_name           = "AllTraffic"
    model_name             = aws_sagemaker_model.chat.name
    instance_type          = "ml.g5.2xlarge"
    initial_instance_count = 1 # expect: GL201
  }
}

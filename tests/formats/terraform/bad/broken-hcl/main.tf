resource "aws_instance" "gpu" {
  instance_type = "g5.xlarge # expect: GL002
}

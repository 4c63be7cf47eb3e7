provider "aws" {
  region = "us-east-1"
}

variable "gpu_instance_type" {
  type    = string
  default = "p5.48xlarge"
}

resource "aws_eks_node_group" "train" {
  cluster_name    = "research"
  node_group_name = "p5-train"
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = ["subnet-0a1b2c3d"]
  ami_type        = "AL2023_x86_64_NVIDIA"
  instance_types  = [var.gpu_instance_type] # expect: GL301
  capacity_type   = "ON_DEMAND"

  scaling_config {
    desired_size = 2
    min_size     = 2
    max_size     = 4
  }
}

provider "aws" {
  region = "us-east-1"
}

# Four p5.48xlarge (192 vCPUs each); the apply waits until AWS grants the increase.
resource "aws_servicequotas_service_quota" "p_on_demand" {
  service_code         = "ec2"
  quota_code           = "L-417A185B"
  value                = 768
  wait_for_fulfillment = true
}

# gpulint.dev/profile: training
# gpulint.dev/max-runtime-hours: "72"
resource "aws_eks_node_group" "train" {
  cluster_name    = "research"
  node_group_name = "p5-train"
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = ["subnet-0a1b2c3d"]
  ami_type        = "AL2023_x86_64_NVIDIA"
  instance_types  = ["p5.48xlarge"]
  capacity_type   = "ON_DEMAND"

  scaling_config {
    desired_size = 0
    min_size     = 0
    max_size     = 4
  }
}

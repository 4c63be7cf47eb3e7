# A module with no GPU capacity: a CPU node pool and a VM. Nothing for gpulint to say.
resource "google_container_node_pool" "system" {
  name       = "system"
  cluster    = "prod"
  location   = "us-central1"
  node_count = 1

  node_config {
    machine_type = "e2-standard-4"
  }
}

resource "aws_instance" "bastion" {
  instance_type = "t3.micro"
}

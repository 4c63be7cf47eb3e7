variable "region" {
  type    = string
  default = "us-central1"
}

variable "min_nodes" {
  description = "Nodes kept in each zone"
  type        = number
  default     = 1
}

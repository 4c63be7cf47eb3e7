variable "model" {
  type    = string
  default = "Qwen/Qwen2.5-7B-Instruct"
}

variable "gpus" {
  type    = number
  default = 1
}

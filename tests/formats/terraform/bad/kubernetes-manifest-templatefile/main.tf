# A vLLM Deployment that Terraform renders from a template in the module and applies with the
# kubernetes provider: gpulint does not render templatefile(), so it says the manifest is a
# template (one GL010 note for the file) instead of reading nothing in silence.
resource "kubernetes_manifest" "inference" {
  manifest = yamldecode(templatefile("${path.module}/templates/server.yaml.tftpl", { # expect: GL010
    model      = var.model
    gpus       = var.gpus
    namespace  = "serving"
  }))
}

resource "kubernetes_manifest" "metrics" {
  manifest = yamldecode(file("${path.module}/templates/monitoring.yaml"))
}

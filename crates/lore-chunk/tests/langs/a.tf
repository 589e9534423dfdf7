# The bucket.
resource "aws_s3_bucket" "logs" {
  bucket = "logs"
}
variable "region" { default = "eu" }
module "vpc" { source = "./vpc" }
locals { name = "x" }
output "id" { value = aws_s3_bucket.logs.id }

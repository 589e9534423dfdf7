(** A cart. *)
type cart = { total : int }
let add c x = Helper.sum c.total x
module M = struct let f x = x end
class point = object method x = 1 end
let () = print_endline "hi"

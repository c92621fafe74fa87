import * as z from 'zod';

/** `{"detail": "..."}`: authentication, permission, not-found and parse errors. */
export const DetailError = z.object({ detail: z.string() });
export type DetailError = z.infer<typeof DetailError>;

/** Serializer errors: `{"<field>": ["msg", ...]}`, `{"non_field_errors": [...]}`. */
export const FieldErrors = z.record(z.string(), z.array(z.string()));
export type FieldErrors = z.infer<typeof FieldErrors>;

/** A `ValidationError("msg")` raised outside a serializer: a bare JSON list. */
export const ListError = z.array(z.string());
export type ListError = z.infer<typeof ListError>;

/** A few views answer a bare JSON string, e.g. `"Incorrect value of type parameter"`. */
export const StringError = z.string();
